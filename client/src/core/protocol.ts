// Types of the TF Insight server contract (see issue 5). Shapes are what the server sends;
// every field the client reads is treated as possibly missing, since the server is a
// separate process that may be older or newer than this client.

/** Ids of the server's `workspace/executeCommand` commands. */
export const ServerCommands = {
  explainError: "tfInsight.explainError",
  startSession: "tfInsight.startSession",
  stopSession: "tfInsight.stopSession",
  checkWorkspace: "tfInsight.checkWorkspace",
  showRule: "tfInsight.showRule",
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
  error?: string;
  cancelled?: boolean;
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
  message?: string;
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
