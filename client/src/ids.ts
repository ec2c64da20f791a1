// Ids this client registers. package.json (repo root) is the source of truth; a unit test
// checks that every id here is contributed there and that every contributed command is here.

export const Commands = {
  explainGraphModeError: "tfInsight.explainGraphModeError",
  startGuidedSession: "tfInsight.startGuidedSession",
  stopGuidedSession: "tfInsight.stopGuidedSession",
  nextStep: "tfInsight.nextStep",
  previousStep: "tfInsight.previousStep",
  clearAnnotations: "tfInsight.clearAnnotations",
  restartServer: "tfInsight.restartServer",
  showOutput: "tfInsight.showOutput",
  revealStep: "tfInsight.revealStep",
  checkWorkspace: "tfInsight.checkWorkspaceFiles",
  debugGraphCode: "tfInsight.debugGraphCode",
  debugEagerly: "tfInsight.debugEagerly",
} as const;

export const Views = {
  session: "tfInsight.sessionView",
} as const;

export const ContextKeys = {
  sessionRunning: "tfInsight.sessionRunning",
  hasSteps: "tfInsight.hasSteps",
} as const;

export const Colors = {
  annotationForeground: "tfInsight.annotationForeground",
  currentStepBackground: "tfInsight.currentStepBackground",
} as const;

export const CONFIG_SECTION = "tfInsight";
export const DEBUG_TYPE = "tf-insight"; // package.json contributes.debuggers
export const CLIENT_ID = "tfInsight"; // vscode-languageclient reads `${CLIENT_ID}.trace.server`
export const DIAGNOSTIC_SOURCE = "tf-insight";
export const PYTHON_EXTENSION_ID = "ms-python.python";
