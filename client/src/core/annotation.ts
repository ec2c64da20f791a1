// Turn guided-session steps into what the editor shows: the one-line after-line annotation,
// the full hover text, and where both go. Pure (no VS Code), unit-tested.
import type { SessionStep, Verdict } from "./protocol";

export const ANNOTATION_PREFIX = "⟵ ";
const SEP = " · ";
const MAX_VALUE = 40;
const MAX_INLINE = 160;

/** A place in a file; `line` is 0-based (editor convention). */
export interface Place {
  path: string;
  line: number;
}

function shorten(text: string, max = MAX_VALUE): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

/** `keras.src.layers.layer.Layer.__call__` → `Layer.__call__`; `__call__` stays. */
export function shortProbe(probe: string): string {
  const parts = probe.split(/[.:]/).filter(Boolean);
  return parts.slice(-2).join(".");
}

function probeMethod(probe: string): string {
  const parts = probe.split(/[.:]/).filter(Boolean);
  return parts[parts.length - 1] ?? probe;
}

/** Name of the graph the step ran in, if the server gave one. */
export function graphName(step: SessionStep): string | undefined {
  const g = step.graph;
  if (typeof g === "string" && g.trim()) {
    return g.trim();
  }
  if (g && typeof g === "object" && typeof g.name === "string" && g.name.trim()) {
    return g.name.trim();
  }
  return undefined;
}

/** `<function Bind(recompute_grad) at 0x7f…>` → `Bind(recompute_grad)`; others shortened. */
export function shortRepr(repr: string): string {
  const m = /^<(?:bound method|function|built-in function|method)\s+(.+?)(?:\s+of\s+<.*>)?\s+at\s+0x[0-9a-fA-F]+>$/.exec(repr.trim());
  return shorten(m?.[1] ?? repr);
}

/** Render a Python value the server sent (already a repr string, or JSON). */
export function renderValue(value: unknown): string {
  if (typeof value === "string") {
    return value;
  }
  if (value === null || value === undefined) {
    return "None";
  }
  if (typeof value === "boolean") {
    return value ? "True" : "False";
  }
  if (typeof value === "number") {
    return String(value);
  }
  if (typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (typeof o["repr"] === "string") {
      return o["repr"];
    }
  }
  return JSON.stringify(value);
}

/** `{"training": true}` → `training=True`; a list of [name, value] pairs is accepted too. */
export function renderKwargs(kwargs: unknown, max = MAX_VALUE): string[] {
  if (!kwargs || typeof kwargs !== "object") {
    return [];
  }
  const entries: Array<[string, unknown]> = Array.isArray(kwargs)
    ? kwargs.filter((e): e is [string, unknown] => Array.isArray(e) && typeof e[0] === "string").map((e) => [e[0], e[1]])
    : Object.entries(kwargs as Record<string, unknown>);
  return entries.map(([k, v]) => `${k}=${shorten(renderValue(v), max)}`);
}

export function renderArgs(args: unknown, max = MAX_VALUE): string[] {
  if (Array.isArray(args)) {
    return args.map((a) => shorten(renderValue(a), max));
  }
  if (args && typeof args === "object") {
    return renderKwargs(args, max);
  }
  return [];
}

/** Title of a step: `Dropout.__call__`, or the short probe name. */
export function stepTitle(step: SessionStep): string {
  const probe = typeof step.probe === "string" ? step.probe : "";
  const layerClass = step.layer?.class;
  if (layerClass) {
    return `${layerClass}.${probe ? probeMethod(probe) : "__call__"}`;
  }
  return probe ? shortProbe(probe) : "step";
}

/** `graph (one_step_on_data)` / `graph` / `eager` / undefined when unknown. */
export function modeText(step: SessionStep): string | undefined {
  if (step.executing_eagerly === true) {
    return "eager";
  }
  if (step.executing_eagerly === false) {
    const name = graphName(step);
    return name ? `graph (${name})` : "graph";
  }
  const name = graphName(step);
  return name ? `graph (${name})` : undefined;
}

/** The after-line annotation, e.g. `⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad) · kwargs: training=True`. */
export function annotationText(step: SessionStep): string {
  const parts = [stepTitle(step)];
  const mode = modeText(step);
  if (mode) {
    parts.push(mode);
  }
  if (step.call_fn?.repr) {
    parts.push(`call_fn=${shortRepr(step.call_fn.repr)}`);
  }
  const kwargs = renderKwargs(step.kwargs);
  if (kwargs.length > 0) {
    parts.push(`kwargs: ${kwargs.join(", ")}`);
  }
  return shorten(ANNOTATION_PREFIX + parts.join(SEP), MAX_INLINE);
}

/** Where a step's annotation goes: the user frame's line, else the probe location. */
export function annotationPlace(step: SessionStep): Place | undefined {
  const frame = step.user_frame ?? step.location;
  if (!frame || typeof frame.path !== "string" || typeof frame.line !== "number" || frame.line < 1) {
    return undefined;
  }
  return { path: frame.path, line: frame.line - 1 };
}

/** The library location the probe hit (e.g. keras/src/layers/layer.py at `__call__`). */
export function probePlace(step: SessionStep): Place | undefined {
  const loc = step.location;
  if (!loc || typeof loc.path !== "string" || typeof loc.line !== "number" || loc.line < 1) {
    return undefined;
  }
  return { path: loc.path, line: loc.line - 1 };
}

function mdEscape(text: string): string {
  return text.replace(/([\\`*_{}[\]<>|])/g, "\\$1");
}

function code(text: string): string {
  const fence = text.includes("`") ? "``" : "`";
  return `${fence}${text}${fence}`;
}

/** Full annotation for the hover and the tree item tooltip (Markdown). */
export function annotationMarkdown(step: SessionStep, index?: number): string {
  const lines: string[] = [];
  lines.push(`**TF Insight — ${index !== undefined ? `step ${index + 1}: ` : ""}${mdEscape(stepTitle(step))}**`, "");
  if (step.probe) {
    lines.push(`- probe: ${code(step.probe)}`);
  }
  const mode = modeText(step);
  lines.push(`- mode: ${mode ? mode : "unknown"}${step.executing_eagerly === false ? " — this code runs while a graph is traced" : ""}`);
  if (step.layer) {
    lines.push(`- layer: ${code(step.layer.class ?? "?")}${step.layer.name ? ` named ${code(step.layer.name)}` : ""}`);
  }
  if (step.call_fn) {
    const c = step.call_fn;
    lines.push(`- call_fn: ${code(c.repr ?? "?")}${c.type ? ` (${mdEscape(c.type)})` : ""}`);
    if (Array.isArray(c.chain) && c.chain.length > 0) {
      lines.push(`- call_fn chain: ${c.chain.map((x) => code(renderValue(x))).join(" → ")}`);
    }
  }
  const args = renderArgs(step.args, 200);
  if (args.length > 0) {
    lines.push(`- args: ${args.map(code).join(", ")}`);
  }
  const kwargs = renderKwargs(step.kwargs, 200);
  lines.push(`- kwargs: ${kwargs.length > 0 ? kwargs.map(code).join(", ") : "none"}`);
  if (step.user_frame) {
    const f = step.user_frame;
    lines.push(`- your code: ${code(`${f.path}:${f.line}`)}${f.function ? ` in ${code(f.function)}` : ""}`);
  }
  if (step.location) {
    lines.push(`- library: ${code(`${step.location.path}:${step.location.line}`)}`);
  }
  return lines.join("\n");
}

/** One line's annotation: several steps can land on the same user line (e.g. every batch). */
export interface LineAnnotation extends Place {
  text: string;
  steps: number[];
}

/** Group steps by file and line; the inline text is the latest step's, with a hit count. */
export function groupAnnotations(steps: readonly SessionStep[]): Map<string, LineAnnotation[]> {
  const byKey = new Map<string, LineAnnotation>();
  steps.forEach((step, i) => {
    const place = annotationPlace(step);
    if (!place) {
      return;
    }
    const key = `${place.path}\0${place.line}`;
    const existing = byKey.get(key);
    if (existing) {
      existing.steps.push(i);
      existing.text = annotationText(step);
    } else {
      byKey.set(key, { ...place, text: annotationText(step), steps: [i] });
    }
  });
  const out = new Map<string, LineAnnotation[]>();
  for (const a of byKey.values()) {
    if (a.steps.length > 1) {
      a.text = `${a.text}  (×${a.steps.length})`;
    }
    const list = out.get(a.path) ?? [];
    list.push(a);
    out.set(a.path, list);
  }
  for (const list of out.values()) {
    list.sort((x, y) => x.line - y.line);
  }
  return out;
}

/** A stop of the Next/Previous walk: the user line, then the library line the probe hit. */
export interface WalkStop extends Place {
  kind: "user" | "library" | "verdict";
  step: number;
}

export function walkStops(steps: readonly SessionStep[], verdict?: Verdict | null): WalkStop[] {
  const stops: WalkStop[] = [];
  steps.forEach((step, i) => {
    const user = step.user_frame ? annotationPlace(step) : undefined;
    if (user) {
      stops.push({ ...user, kind: "user", step: i });
    }
    const lib = probePlace(step);
    if (lib && !(user && lib.path === user.path && lib.line === user.line)) {
      stops.push({ ...lib, kind: "library", step: i });
    }
  });
  if (verdict) {
    const last = stops[stops.length - 1];
    stops.push({ path: last?.path ?? "", line: last?.line ?? 0, kind: "verdict", step: steps.length - 1 });
  }
  return stops;
}

/** One-line summary of a verdict for notifications and the tree. */
export function verdictText(v: Verdict): string {
  const head = [v.rule, v.title].filter(Boolean).join(": ");
  return head || v.summary || v.id || "verdict";
}
