// Which text "Explain Graph-Mode Error" explains: the selection in the active editor, else the
// selection in the active terminal, else the clipboard if it looks like an error, else ask.

export type TextSource = "editor" | "terminal" | "clipboard" | "input";

export interface TextCandidates {
  editorSelection?: string | null;
  terminalSelection?: string | null;
  clipboard?: string | null;
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
 * Choose the text to explain. An explicit selection (editor, then terminal) is used as is; the
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
  const clip = c.clipboard ? normaliseText(c.clipboard) : "";
  if (clip.trim() && looksLikeError(clip)) {
    return { text: clip, source: "clipboard" };
  }
  return undefined;
}
