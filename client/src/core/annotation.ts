// Turn guided-session steps into what the editor shows: the one-line after-line annotation,
// the full hover text, and where both go. Pure (no VS Code), unit-tested.
import type { SessionStep, Verdict } from "./protocol";

const ANNOTATION_PREFIX = "⟵ ";

/** A place in a file; `line` is 0-based (editor convention). In a traced notebook, `cell` is
 * the cell's number (1-based, all cells counted) and `line` is in that cell. */
export interface Place {
  path: string;
  line: number;
  cell?: number;
}

function placeOf(frame: { path?: unknown; line?: unknown; cell?: unknown } | null | undefined): Place | undefined {
  if (!frame || typeof frame.path !== "string" || typeof frame.line !== "number" || frame.line < 1) {
    return undefined;
  }
  return typeof frame.cell === "number" ? { path: frame.path, line: frame.line - 1, cell: frame.cell } : { path: frame.path, line: frame.line - 1 };
}

/** Whether two places are the same line of the same file (and cell). */
export function samePlace(a: Place | undefined, b: Place | undefined): boolean {
  return a !== undefined && b !== undefined && a.path === b.path && a.line === b.line && a.cell === b.cell;
}

// Titles, modes, labels and hovers are built once, in the core (`tf_insight/session/annotation.py`),
// and sent with each step: these only read them.

/** `Dense.__call__`, `custom_gradient._graph_mode_decorator (Dense)`. */
export function stepTitle(step: SessionStep): string {
  return step.annotation?.title ?? step.probe ?? "step";
}

/** `graph (one_step_on_data)` / `graph` / `eager` / undefined when unknown. */
export function modeText(step: SessionStep): string | undefined {
  return step.annotation?.mode || undefined;
}

/** The after-line annotation, e.g. `⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad) · kwargs: training=True`. */
export function annotationText(step: SessionStep): string {
  return step.annotation?.label ?? ANNOTATION_PREFIX + stepTitle(step);
}

/** Full annotation for the hover and the tree item tooltip (Markdown). */
export function annotationMarkdown(step: SessionStep): string {
  return step.annotation?.markdown ?? "";
}

/** Where a step's annotation goes: the user frame's line, else the probe location. */
export function annotationPlace(step: SessionStep): Place | undefined {
  return placeOf(step.user_frame ?? step.location);
}

/** The library location the probe hit (e.g. keras/src/layers/layer.py at `__call__`). */
export function probePlace(step: SessionStep): Place | undefined {
  return placeOf(step.location);
}

function mdEscape(text: string): string {
  return text.replace(/([\\`*_{}[\]<>|])/g, "\\$1");
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
    const key = placeKey(place);
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
    if (lib && !samePlace(lib, user)) {
      add(lib, step, i);
    }
  });
  const out = new Map<string, LineAnnotation[]>();
  const at = verdictPlace(verdict);
  if (verdict && at) {
    const key = placeKey(at);
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
    if (lib && !samePlace(lib, user)) {
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
  return placeOf(verdict?.user_frame);
}

function placeKey(place: Place): string {
  return `${place.path}\0${place.cell ?? ""}\0${place.line}`;
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
