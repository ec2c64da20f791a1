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

function namedGraph(step: SessionStep): string | undefined {
  const name = graphName(step);
  return name && name !== "eager" ? name : undefined;
}

/** `<function Bind(recompute_grad) at 0x7f…>` → `Bind(recompute_grad)`; others shortened. */
export function shortRepr(repr: string): string {
  const t = repr.trim();
  const fn = /^<(?:function|built-in function)\s+(\S+)(?:\s+at\s+0x[0-9a-fA-F]+)?>$/.exec(t);
  if (fn?.[1]) {
    return shorten(fn[1].replace(/^.*<locals>\./, ""));
  }
  const method = /^<bound method\s+(\S+)\s+of\s/.exec(t);
  if (method?.[1]) {
    return shorten(method[1]);
  }
  const obj = /^<([\w.]+) object at 0x[0-9a-fA-F]+>$/.exec(t);
  if (obj?.[1]) {
    return shorten(obj[1].split(".").pop() ?? obj[1]);
  }
  return shorten(t.replace(/\s+at\s+0x[0-9a-fA-F]+>$/, ">"));
}

/** Render a value the server sent: a JSON scalar, a repr string, or an argument summary
 * (`{type, shape, dtype}`, `{type, value}`, `{type, len, items}`, `{type, keys}`, `{type, repr}`). */
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
  if (typeof value === "object" && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const type = typeof o["type"] === "string" ? o["type"] : undefined;
    if (typeof o["shape"] === "string") {
      return `${type ?? "Tensor"}${o["shape"]}${typeof o["dtype"] === "string" ? " " + o["dtype"] : ""}`;
    }
    if ("value" in o) {
      return renderValue(o["value"]);
    }
    if (typeof o["repr"] === "string") {
      return o["repr"];
    }
    if (Array.isArray(o["items"])) {
      const items = (o["items"] as unknown[]).map(renderValue);
      const more = typeof o["len"] === "number" && o["len"] > items.length ? ", …" : "";
      return type === "tuple" ? `(${items.join(", ")}${more})` : `[${items.join(", ")}${more}]`;
    }
    if (Array.isArray(o["keys"])) {
      return `{${(o["keys"] as unknown[]).map(String).join(", ")}}`;
    }
    if (type) {
      return type;
    }
  }
  return JSON.stringify(value);
}

interface ChainLink {
  kind?: string;
  type?: string;
  repr?: string;
}

const WRAPPER_NAMES: Record<string, string> = {
  "custom_gradient Bind": "Bind",
  "tf.recompute_grad wrapper": "recompute_grad",
  "tf.function": "tf.function",
};

/**
 * Short label of the called function from its wrapper chain (outermost first), wrappers
 * nested around the function they wrap: `Bind(recompute_grad(Dense.call))`,
 * `recompute_grad(Dense.call)`, `Functional.call`. Keras's traceback wrapper is skipped.
 */
export function callFnLabel(callFn: SessionStep["call_fn"]): string | undefined {
  if (!callFn) {
    return undefined;
  }
  const chain = (Array.isArray(callFn.chain) ? callFn.chain : []).filter((l): l is ChainLink => typeof l === "object" && l !== null);
  const wrappers: string[] = [];
  let leaf: string | undefined;
  for (const link of chain) {
    if (link.kind === "Keras traceback wrapper") {
      continue;
    }
    const wrapper = link.kind ? WRAPPER_NAMES[link.kind] : undefined;
    if (wrapper) {
      wrappers.push(wrapper);
      continue;
    }
    leaf = link.repr ? shortRepr(link.repr) : link.type;
    break;
  }
  if (wrappers.length === 0) {
    return leaf ?? (callFn.repr ? shortRepr(callFn.repr) : undefined);
  }
  return leaf ? `${wrappers.join("(")}(${leaf}${")".repeat(wrappers.length)}` : `${wrappers.join("(")}${")".repeat(wrappers.length - 1)}`;
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

/** Title of a step: `Dense.__call__` for a layer call, else the short probe name (with the layer). */
export function stepTitle(step: SessionStep): string {
  const probe = typeof step.probe === "string" ? step.probe : "";
  const layerClass = step.layer?.class;
  if (layerClass && (probe === "" || /Layer\.__call__$|Operation\.__call__$/.test(probe))) {
    return `${layerClass}.${probe ? probeMethod(probe) : "__call__"}`;
  }
  const title = probe ? shortProbe(probe) : "step";
  return layerClass ? `${title} (${layerClass})` : title;
}

/** `graph (one_step_on_data)` / `graph` / `eager` / undefined when unknown. */
export function modeText(step: SessionStep): string | undefined {
  if (step.executing_eagerly === true) {
    return "eager";
  }
  if (step.executing_eagerly === false) {
    const name = namedGraph(step);
    return name ? `graph (${name})` : "graph";
  }
  const name = namedGraph(step);
  return name ? `graph (${name})` : undefined;
}

/** The after-line annotation, e.g. `⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad) · kwargs: training=True`. */
export function annotationText(step: SessionStep): string {
  const parts = [stepTitle(step)];
  const mode = modeText(step);
  if (mode) {
    parts.push(mode);
  }
  const callFn = callFnLabel(step.call_fn);
  if (callFn) {
    parts.push(`call_fn=${callFn}`);
  }
  const kwargs = renderKwargs(step.kwargs);
  if (kwargs.length > 0) {
    parts.push(`kwargs: ${kwargs.join(", ")}`);
  }
  const raises = detailRaises(step);
  if (raises) {
    parts.push(`raises ${raises.split(":")[0] ?? raises}`);
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
      const links = c.chain.map((x) => {
        const l = (typeof x === "object" && x !== null ? x : {}) as ChainLink;
        return `${l.kind ?? "?"} ${code(shorten(l.repr ?? l.type ?? "", 80))}`;
      });
      lines.push(`- call_fn chain (outermost first): ${links.join(" → ")}`);
    }
  }
  const args = renderArgs(step.args, 200);
  if (args.length > 0) {
    lines.push(`- args: ${args.map(code).join(", ")}`);
  }
  const kwargs = renderKwargs(step.kwargs, 200);
  lines.push(`- kwargs: ${kwargs.length > 0 ? kwargs.map(code).join(", ") : "none"}`);
  const raises = detailRaises(step);
  if (raises) {
    lines.push(`- **raises:** ${code(raises)}`);
  }
  if (step.user_frame) {
    const f = step.user_frame;
    lines.push(`- your code: ${code(`${f.path}:${f.line}`)}${f.function ? ` in ${code(f.function)}` : ""}`);
  }
  if (step.location) {
    lines.push(`- library: ${code(`${step.location.path}:${step.location.line}`)}`);
  }
  return lines.join("\n");
}

/** `detail.raises` of a step (e.g. custom_gradient's graph-mode kwargs error), if any. */
export function detailRaises(step: SessionStep): string | undefined {
  const d = step["detail"];
  if (d && typeof d === "object" && typeof (d as Record<string, unknown>)["raises"] === "string") {
    return (d as Record<string, string>)["raises"];
  }
  return undefined;
}

/** One line's annotation: several steps can land on the same user line (e.g. every batch). */
export interface LineAnnotation extends Place {
  text: string;
  /** Indices of all steps on this line, and the one whose text is shown (-1: none). */
  steps: number[];
  shown: number;
  /** Set on the line the verdict names. */
  verdict?: Verdict;
}

/**
 * Group steps by file and line: each step at its user line and at the library line its probe
 * hit (Keras's `__call__`, TF's `_graph_mode_decorator`). The inline text is the raising (else
 * latest) step's, with a count; the verdict's line leads with the verdict.
 */
export function groupAnnotations(steps: readonly SessionStep[], verdict?: Verdict | null): Map<string, LineAnnotation[]> {
  const byKey = new Map<string, LineAnnotation>();
  const add = (place: Place, step: SessionStep, i: number): void => {
    const key = `${place.path}\0${place.line}`;
    const existing = byKey.get(key);
    if (existing) {
      existing.steps.push(i);
      // The inline text is the step that raises, else the latest one.
      const shownRaises = detailRaises(steps[existing.shown] ?? {}) !== undefined;
      if (detailRaises(step) !== undefined || !shownRaises) {
        existing.shown = i;
        existing.text = annotationText(step);
      }
    } else {
      byKey.set(key, { ...place, text: annotationText(step), steps: [i], shown: i });
    }
  };
  steps.forEach((step, i) => {
    const user = annotationPlace(step);
    const lib = probePlace(step);
    if (user) {
      add(user, step, i);
    }
    if (lib && !(user && lib.path === user.path && lib.line === user.line)) {
      add(lib, step, i);
    }
  });
  const out = new Map<string, LineAnnotation[]>();
  const at = verdictPlace(verdict);
  if (verdict && at) {
    const key = `${at.path}\0${at.line}`;
    byKey.set(key, { ...(byKey.get(key) ?? { ...at, text: "", steps: [], shown: -1 }), verdict });
  }
  for (const a of byKey.values()) {
    const count = a.steps.length > 1 ? `  (${a.steps.length} steps)` : "";
    a.text = a.verdict ? `⚑ ${verdictText(a.verdict)}${a.text ? `  ·  ${a.text}` : ""}${count}` : `${a.text}${count}`;
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

/** Positions in `steps` of the verdict's chain (step `index` values), if it names one. */
export function chainPositions(steps: readonly SessionStep[], verdict?: Verdict | null): number[] {
  const chain = Array.isArray(verdict?.chain) ? verdict.chain.filter((n): n is number => typeof n === "number") : [];
  const out: number[] = [];
  for (const n of chain) {
    const pos = steps.findIndex((s, i) => (typeof s["index"] === "number" ? s["index"] : i) === n);
    if (pos >= 0 && !out.includes(pos)) {
      out.push(pos);
    }
  }
  return out;
}

/** The walk: every step, or only the verdict's chain once there is one; then the verdict. */
export function walkStops(steps: readonly SessionStep[], verdict?: Verdict | null): WalkStop[] {
  const stops: WalkStop[] = [];
  const chain = chainPositions(steps, verdict);
  const visit = chain.length > 0 ? chain : steps.map((_, i) => i);
  visit.forEach((i) => {
    const step = steps[i];
    if (!step) {
      return;
    }
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
    const at = verdictPlace(verdict) ?? { path: last?.path ?? "", line: last?.line ?? 0 };
    stops.push({ ...at, kind: "verdict", step: last?.step ?? steps.length - 1 });
  }
  return stops;
}

/** The user's line the verdict names, if it names one. */
export function verdictPlace(verdict?: Verdict | null): Place | undefined {
  const frame = verdict?.user_frame;
  if (!frame || typeof frame.path !== "string" || typeof frame.line !== "number" || frame.line < 1) {
    return undefined;
  }
  return { path: frame.path, line: frame.line - 1 };
}

/** The verdict as hover / tooltip Markdown: title, what happened, the fix. */
export function verdictMarkdown(v: Verdict): string {
  return `**${mdEscape(verdictText(v))}**\n\n${v.summary ?? ""}\n\n**Fix:** ${v.fix ?? ""}`;
}

/** One-line summary of a verdict for notifications and the tree. */
export function verdictText(v: Verdict): string {
  const head = [v.rule, v.title].filter(Boolean).join(": ");
  return head || v.summary || v.id || "verdict";
}
