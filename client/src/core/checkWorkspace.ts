// What "TF Insight: Check Workspace" says when the server's check ends (no vscode import: unit-tested).

/** The result of the server's `tfInsight.checkWorkspace` command. */
export interface CheckWorkspaceResult {
  files?: number;
  findings?: number;
  cancelled?: boolean;
}

export function checkWorkspaceMessage(result: CheckWorkspaceResult): string {
  const files = result.files ?? 0;
  const findings = result.findings ?? 0;
  const counted = `${findings} finding${findings === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}`;
  return result.cancelled ? `TF Insight: check cancelled (${counted} so far).` : `TF Insight: ${counted}.`;
}
