// Types of the TF Insight server contract (see issue 5). The session messages are generated
// from their schema in the core (the `Wire*` block below, from tf_insight/session/wire.py:
// tests/session/test_schema.py fails when it is out of date). The hand-written types the
// client keeps (`SessionStep`, `SessionResult`, `Verdict`, ...) treat every field as possibly
// missing (the server is a separate process that may be older or newer than this client);
// client/test/protocol.test.ts checks that each of their fields is a field of the message,
// of a type the message's fits, so that a change on one side without the other fails.

/** Ids of the server's `workspace/executeCommand` commands. */
export const ServerCommands = {
  explainError: "tfInsight.explainError",
  startSession: "tfInsight.startSession",
  stopSession: "tfInsight.stopSession",
  checkWorkspace: "tfInsight.checkWorkspace",
  showRule: "tfInsight.showRule",
  debugConfiguration: "tfInsight.debugConfiguration",
} as const;

/** Custom notifications sent by the server. */
export const ServerNotifications = {
  sessionStep: "tfInsight/sessionStep",
  sessionEnd: "tfInsight/sessionEnd",
} as const;

export interface Location {
  path: string;
  line: number; // 1-based, as in Python tracebacks
}

export interface UserFrame extends Location {
  function?: string;
  /** The notebook cell of the frame (`In[3]`), when the traceback came from IPython. (A traced
   * notebook's session sends the cell's number instead: see `annotation.ts` placeOf.) */
  cell?: string | null;
}

export interface LayerInfo {
  class?: string;
  name?: string;
}

export interface CallFnInfo {
  repr?: string;
  type?: string;
  id?: number | string;
  chain?: unknown[];
}

/** What an editor shows for a step, built by the core (`tf_insight/session/annotation.py`). */
export interface StepAnnotation {
  title: string;
  /** `eager`, `graph (one_step_on_data)`, or "" when unknown. */
  mode: string;
  label: string;
  markdown: string;
}

export interface SessionStep {
  probe?: string;
  annotation?: StepAnnotation;
  location?: Location | null;
  user_frame?: UserFrame | null;
  executing_eagerly?: boolean | null;
  graph?: string | { name?: string } | null;
  layer?: LayerInfo | null;
  call_fn?: CallFnInfo | null;
  args?: unknown;
  kwargs?: unknown;
  [extra: string]: unknown;
}

export interface Verdict {
  id?: string | null;
  rule?: string | null;
  title?: string;
  summary?: string;
  cause?: string | null;
  fix?: string | null;
  /** `index` values of the steps that led to the failure. */
  chain?: number[];
  /** The user's line that did it. */
  user_frame?: (UserFrame & { source?: string | null }) | null;
  /** Static findings at or near that line (the `check --format json` shape). */
  findings?: unknown[];
}

export interface SessionResult {
  status?: string;
  steps?: number | SessionStep[];
  exception?: { type?: string; message?: string; traceback?: string } | string | null;
  problems?: string[];
  verdict?: Verdict | null;
  retraces?: unknown;
  exit_code?: number | null;
  duration_s?: number;
  /** Set when `tfInsight.session.stopAfter` ended the run: "the first step", "a verdict"… */
  stopped_after?: string | null;
}

export interface SessionStepParams {
  sessionId: string;
  step: SessionStep;
}

export interface SessionEndParams {
  sessionId: string;
  result: SessionResult;
}

/** A static finding, as `tf_insight.findings.Finding.to_dict` makes it (1-based columns). */
export interface Finding {
  code?: string;
  name?: string;
  path?: string;
  line?: number;
  column?: number;
  end_line?: number;
  end_column?: number;
  /** One line: what is wrong and where. */
  message?: string;
  /** Why it goes wrong in graph mode ("" when the rule says nothing more). */
  detail?: string;
  /** What to do instead, in one line: the rule's advice, else its fix's title. */
  help?: string;
  severity?: string;
  fix?: { description?: string; edits?: unknown[] } | null;
  related?: Array<{ path?: string; line?: number; column?: number; message?: string }>;
  [extra: string]: unknown;
}

export interface Explanation {
  id?: string;
  rule?: string | null;
  title?: string;
  summary?: string;
  cause?: string;
  fix?: string;
  exception?: { type?: string; message?: string } | null;
  user_frame?: UserFrame | null;
  frames?: Array<UserFrame & { user?: boolean; library?: boolean; code?: string }>;
  findings?: Finding[];
  links?: string[];
  notes?: string[];
  /** "high" | "medium" | "low", and what made it so. */
  confidence?: string | null;
  evidence?: string[];
}

export interface ExplainResult {
  markdown?: string;
  explanation?: Explanation | null;
}

export interface StartSessionArgs {
  script: string;
  args: string[];
  python: string;
  cwd: string;
  env: Record<string, string>;
}

// ---- Generated from tf_insight/session/wire.py by `python -m tf_insight.session.typescript --write`: do not edit. ----

/** A line of code: the library line a probe hit, or a line of the user's. */
export type WireFrame = {
  path: string;
  line: number;
  function: string;
};

/** The user's line behind a probe hit. `generated`: the AutoGraph-generated line it was mapped from. The runner adds `cell` and `source` for a traced notebook. */
export type WireUserFrame = {
  path: string;
  line: number;
  function: string;
  generated?: string;
  cell?: number | null;
  source?: string | null;
};

/** The Keras layer being called. `remat`: the mode a `RematScope` gave it. */
export type WireLayer = {
  class: string;
  name: string;
  remat?: string;
};

/** One wrapper of a callable; `path`/`line`: where a Python function is defined (the runner adds `cell` for one defined in a traced notebook). */
export type WireLink = {
  kind: string;
  type: string;
  repr: string;
  id: number;
  path?: string;
  line?: number;
  cell?: number | null;
};

/** A callable and its wrapper chain, outermost first. */
export type WireCallableInfo = {
  repr: string;
  type: string;
  id: number;
  chain: WireLink[];
};

/** A bounded description of an argument: a tensor's `shape` and `dtype`, a scalar's `value`, a sequence's `len` and first `items`, a dict's `keys`, else its `repr`. */
export type WireValueSummary = {
  type: string;
  shape?: string;
  dtype?: string;
  value?: string | number | boolean | null;
  len?: number;
  items?: WireValueSummary[];
  keys?: string[];
  repr?: string;
};

/** What some probes add: `tf_convert`'s `returned` callable (and whether it is the one it was given), a trace's `function` and `trace_index`, a rejected call's `raises` and the unfiltered `stack` there (`path:function:line`, outermost first). */
export type WireStepDetail = {
  returned?: WireCallableInfo;
  same_object?: boolean;
  function?: string;
  trace_index?: number;
  raises?: string;
  stack?: string[];
};

/** What an editor shows for a step (`annotation.py`): its title, its mode ("" when unknown), the one-line label after the line, the hover's Markdown. */
export type WireAnnotation = {
  title: string;
  mode: string;
  label: string;
  markdown: string;
};

/** One probe hit (`index`: its place in the run), with its annotation. */
export type WireStepData = {
  probe: string;
  location: WireFrame;
  user_frame: WireUserFrame | null;
  executing_eagerly: boolean | null;
  graph: string | null;
  layer: WireLayer | null;
  call_fn: WireCallableInfo | null;
  args: WireValueSummary[];
  kwargs: Record<string, string | number | boolean | null>;
  index: number;
  detail: WireStepDetail;
  annotation: WireAnnotation;
};

/** `tfInsight/sessionStep`: a step, as it happens. */
export type WireSessionStepParams = {
  sessionId: string;
  step: WireStepData;
};

/** An uncaught exception; `stack`: the unfiltered stack where a raise site recorded it; `thread`: the thread it ended (None: the main thread). */
export type WireExceptionData = {
  type: string;
  message: string;
  traceback: string;
  stack: string[];
  thread: string | null;
};

/** The user's line a verdict names, with its source; `cell` in a traced notebook. */
export type WireVerdictFrame = {
  path: string;
  line: number;
  function: string;
  source: string | null;
  cell?: number | null;
};

/** The hazard and its fix, linked to the explain catalogue (`id`) and a rule; `chain`: the `index` of the steps that led to it; `findings`: the static findings at or near its line (`tf_insight.findings.Finding.to_dict`). */
export type WireVerdictData = {
  id: string | null;
  rule: string | null;
  title: string;
  summary: string;
  cause: string | null;
  fix: string | null;
  chain: number[];
  user_frame: WireVerdictFrame | null;
  findings: Record<string, unknown>[];
};

/** A tf.function object traced more than once, and why. */
export type WireRetraceData = {
  function: string;
  path: string;
  line: number;
  count: number;
  reasons: string[];
  call_site: WireUserFrame | null;
  cell: number | null;
  id: string | null;
  calls: number | null;
  cause: string | null;
  argument: string | null;
  context: string | null;
  variable_traces: number;
  expected: string | null;
  input_signature: string | null;
};

/** How often Python ran (traces) against how often the graph ran. */
export type WireSideEffectData = {
  subject: string;
  python_runs: number;
  function: string | null;
  function_calls: number | null;
  summary: string;
  path: string | null;
  line: number | null;
  cell: number | null;
  runner: string | null;
};

/** A function of the user's: its qualified name and where it is defined (its first decorator's line). The runner adds `cell` for one defined in a traced notebook. */
export type WireUserFunction = {
  name: string;
  path: string;
  line: number;
  cell?: number | null;
};

/** One tf.function object's calls, graph runs and traces. The runner adds `cell` for a function defined in a traced notebook. */
export type WireFunctionCount = {
  id: string;
  function: string;
  context: string | null;
  path: string;
  line: number;
  calls: number;
  runs: number;
  traces: number;
  failed_traces: number;
  runner: "tf.data" | null;
  user_function: WireUserFunction | null;
  inside: string[];
  cell?: number | null;
};

/** A module-level Python value that a traced function of the user's (`reader`) read while tracing, and that had another value when the graph of `function` (its outermost tf.function) later ran without tracing again: the graph kept the value it was traced with (`traced`), `runs` times. */
export type WireStaleGlobal = {
  function: string;
  reader: WireUserFunction;
  name: string;
  traced: string;
  now: string;
  runs: number;
};

/** A Python `print` of the user's that ran while a graph was traced: once per trace, not per step. The runner adds `cell` for one in a traced notebook. */
export type WireTracePrint = {
  path: string;
  line: number;
  tensors: boolean;
  count: number;
  cell?: number | null;
};

/** A number attribute of a layer (`self.calls`) that traces of the user's `call` changed, `count` times: it counts traces, not steps. */
export type WireAttributeWrite = {
  layer: string;
  id: number;
  name: string;
  count: number;
  call: WireUserFunction;
};

/** Everything a session found (`model.TraceResult`). */
export type WireTraceResultData = {
  script: string;
  status: "completed" | "failed" | "stopped" | "timeout" | "cancelled" | "error";
  steps: WireStepData[];
  exception: WireExceptionData | null;
  verdict: WireVerdictData | null;
  retraces: WireRetraceData[];
  side_effects: WireSideEffectData[];
  functions: WireFunctionCount[];
  stale_globals: WireStaleGlobal[];
  prints: WireTracePrint[];
  attribute_writes: WireAttributeWrite[];
  exit_code: number | null;
  duration_s: number;
  problems: string[];
  retired_probes: string[];
  probe_hits: Record<string, number>;
  tracer_switched_off: string | null;
  stopped_after: string | null;
  versions: Record<string, string | null>;
};

/** `tfInsight/sessionEnd`: the result, once the session has ended. */
export type WireSessionEndParams = {
  sessionId: string;
  result: WireTraceResultData;
};

// ---- End of the generated session types. ----
