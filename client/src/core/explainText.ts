// Which text "Explain Graph-Mode Error" explains: the selection in the active editor, else the
// selection in the active terminal, else the error output of the notebook cell at hand, else the
// clipboard if it looks like an error, else ask.

export type TextSource = "editor" | "terminal" | "notebook" | "clipboard" | "input";

export interface TextCandidates {
  editorSelection?: string | null;
  terminalSelection?: string | null;
  notebookOutput?: string | null;
  clipboard?: string | null;
}

/** One item of a notebook cell's output: its MIME type and its data as text. */
export interface OutputItem {
  mime: string;
  text: string;
}

/** The MIME type of a notebook cell's error output (name, message, stack). */
export const ERROR_MIME = "application/vnd.code.notebook.error";
const STREAM_MIMES = new Set(["application/vnd.code.notebook.stdout", "application/vnd.code.notebook.stderr"]);

/**
 * The text of a cell's outputs that can hold an error or a TF warning, in output order: streams
 * (TF logs there in kernels) and error tracebacks (`stack` is IPython's traceback, ANSI and all).
 * Rich outputs (plots, our own `%load_ext tf_insight` note) are left out.
 */
export function cellOutputText(items: OutputItem[]): string {
  const parts: string[] = [];
  for (const item of items) {
    if (STREAM_MIMES.has(item.mime)) {
      parts.push(item.text);
    } else if (item.mime === ERROR_MIME) {
      try {
        const error = JSON.parse(item.text) as { name?: string; message?: string; stack?: string };
        parts.push(error.stack || `${error.name ?? "Error"}: ${error.message ?? ""}`);
      } catch {
        parts.push(item.text);
      }
    }
  }
  return parts.join("\n").trim();
}

export interface PickedText {
  text: string;
  source: TextSource;
}

const ERROR_HINTS = [
  /Traceback \(most recent call last\)/,
  /^\s*File ".*", line \d+/m,
  /\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b/,
  /\btf\.function\b|\bgraph\b|\bEagerTensor\b|\bSymbolicTensor\b/i,
];

/** True if the text plausibly contains a Python error or TF message worth explaining. */
export function looksLikeError(text: string): boolean {
  return ERROR_HINTS.some((re) => re.test(text));
}

/** Normalise pasted text: CRLF → LF, strip a terminal's trailing blank lines. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/\s+$/u, "");
}

/**
 * Choose the text to explain. An explicit selection (editor, then terminal) is used as is, then a
 * notebook cell's error output; the
 * clipboard only when it looks like an error, so a stale clipboard doesn't get explained by
 * surprise. Returns undefined when the user has to be asked.
 */
export function pickExplainText(c: TextCandidates): PickedText | undefined {
  const editor = c.editorSelection ? normaliseText(c.editorSelection) : "";
  if (editor.trim()) {
    return { text: editor, source: "editor" };
  }
  const terminal = c.terminalSelection ? normaliseText(c.terminalSelection) : "";
  if (terminal.trim()) {
    return { text: terminal, source: "terminal" };
  }
  const notebook = c.notebookOutput ? normaliseText(c.notebookOutput) : "";
  if (notebook.trim()) {
    return { text: notebook, source: "notebook" };
  }
  const clip = c.clipboard ? normaliseText(c.clipboard) : "";
  if (clip.trim() && looksLikeError(clip)) {
    return { text: clip, source: "clipboard" };
  }
  return undefined;
}
