#!/usr/bin/env bash
# End-to-end test of the VS Code client in real VS Code (code-server 4.139.1 = VS Code 1.139),
# driven by Playwright in Debian's headless Chromium:
#   setup (.tools/, cached) → build the .vsix → install it into a fresh code-server profile →
#   start code-server on 127.0.0.1 in its own process group → client/e2e/drive.mjs → stop it.
# Screenshots and results.json go to test-artifacts/vscode/. Exit status is drive.mjs's.
# Env: PYTHON (interpreter with tf-insight + TensorFlow; default .venv/bin/python),
#      TFI_E2E_SKIP_BUILD=1 (reuse dist/*.vsix), TFI_E2E_KEEP=1 (keep the temp folder),
#      TFI_E2E_SCENARIO: features (default: drive.mjs on the examples), or attack-untrusted /
#      attack-trusted (attack.mjs on the malicious workspace of tests/security/workspace.py,
#      with VS Code's workspace trust on and the folder untrusted, or trust off; artifacts in
#      test-artifacts/vscode-<scenario>/, the payloads that ran in its marker.txt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
SCENARIO="${TFI_E2E_SCENARIO:-features}"
case "$SCENARIO" in
  features) ARTIFACTS="$ROOT/test-artifacts/vscode"; DRIVER=client/e2e/drive.mjs ;;
  attack-untrusted|attack-trusted) ARTIFACTS="$ROOT/test-artifacts/vscode-$SCENARIO"; DRIVER=client/e2e/attack.mjs ;;
  *) echo "e2e: unknown TFI_E2E_SCENARIO $SCENARIO" >&2; exit 2 ;;
esac
mkdir -p "$ARTIFACTS"
rm -f "$ARTIFACTS"/*.png "$ARTIFACTS"/results.json "$ARTIFACTS"/marker.txt

if [ -z "${PYTHON:-}" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON="$(command -v python3)"; fi
fi
PYTHON="$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON")"   # absolute, keep venv symlink

t0=$(date +%s)
eval "$(bash client/e2e/setup.sh | grep -E '^(NODE24|CODE_SERVER)=')"
echo "e2e: toolchain ready ($(( $(date +%s) - t0 )) s)"

[ -d node_modules ] || npm ci --no-audit --no-fund
VERSION="$(node -p 'require("./package.json").version')"
VSIX="$ROOT/dist/tf-insight-$VERSION.vsix"
if [ "${TFI_E2E_SKIP_BUILD:-0}" != 1 ] || [ ! -f "$VSIX" ]; then
  PYTHON="$PYTHON" bash client/scripts/package.sh >"$ARTIFACTS/package.log" 2>&1 \
    || { tail -30 "$ARTIFACTS/package.log" >&2; exit 1; }
fi
echo "e2e: vsix $VSIX ($(( $(date +%s) - t0 )) s)"

TMP="$(mktemp -d /tmp/tfi-e2e.XXXXXX)"
CS_PID=""
cleanup() {
  if [ -n "$CS_PID" ]; then
    kill -- "-$CS_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
  fi
  if [ "${TFI_E2E_KEEP:-0}" = 1 ]; then echo "e2e: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT INT TERM

export XDG_CONFIG_HOME="$TMP/xdg-config" XDG_DATA_HOME="$TMP/xdg-data" XDG_CACHE_HOME="$TMP/xdg-cache"
USER_DATA="$TMP/user-data"
EXTENSIONS="$TMP/extensions"
WS="$TMP/workspace"
mkdir -p "$USER_DATA/User" "$EXTENSIONS" "$WS" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME"

TRUST_ENABLED=false
if [ "$SCENARIO" = features ]; then
  # The workspace: a seed fixture with a fixable finding, the RematScope script, and a real
  # traceback produced by running that script here (so its frames point into this workspace).
  cp examples/summary_step.py examples/remat_scope_dropout.py "$WS/"
  (cd "$WS" && TF_CPP_MIN_LOG_LEVEL=2 timeout 300 "$PYTHON" remat_scope_dropout.py >/dev/null 2>remat_traceback.txt) || true
  grep -q "Traceback (most recent call last)" "$WS/remat_traceback.txt" \
    || { echo "e2e: running remat_scope_dropout.py gave no traceback:" >&2; tail -20 "$WS/remat_traceback.txt" >&2; exit 1; }
  # A second real error whose rule (TFI005) has a quick fix, for the panel's "Apply quick fix".
  # Run from a copy so that the traceback's user frames point at summary_step.py here.
  mkdir -p "$TMP/run-summary" && cp examples/summary_step.py "$TMP/run-summary/"
  (cd "$TMP/run-summary" && TF_CPP_MIN_LOG_LEVEL=2 timeout 300 "$PYTHON" summary_step.py >/dev/null 2>"$WS/summary_traceback.txt") || true
  sed -i "s#$TMP/run-summary/#$WS/#g" "$WS/summary_traceback.txt"
  if grep -q "Traceback (most recent call last)" "$WS/summary_traceback.txt"; then
    export TFI_E2E_SUMMARY_TRACEBACK=1
  else
    echo "e2e: summary_step.py gave no traceback; skipping explain-apply-fix" >&2
  fi
  # A notebook whose cell failed in a real IPython kernel, for explaining a cell's error output.
  mkdir -p "$TMP/cells"
  printf 'import tensorflow as tf\n' >"$TMP/cells/1.py"
  printf '@tf.function(autograph=False)\ndef positive_only(x):\n    if x > 0:\n        return x\n    return -x\n\npositive_only(tf.constant(1.0))\n' >"$TMP/cells/2.py"
  (cd "$TMP/cells" && timeout 300 "$PYTHON" "$ROOT/tests/kernel.py" notebook "$WS/graph_error.ipynb" 1.py 2.py 2>"$ARTIFACTS/kernel.log") \
    || { echo "e2e: running the notebook failed:" >&2; tail -20 "$ARTIFACTS/kernel.log" >&2; exit 1; }
  # An interpreter with no packages at all, for the bundled-server step.
  FRESH="$TMP/fresh-venv"
  "$PYTHON" -m venv --without-pip "$FRESH" >/dev/null
  export TFI_E2E_FRESH_PYTHON="$FRESH/bin/python"
else
  # A cloned repository that tries every way to get its code run by being opened.
  "$PYTHON" -m tests.security.workspace "$WS" "$ARTIFACTS/marker.txt" >/dev/null
  [ "$SCENARIO" = attack-untrusted ] && TRUST_ENABLED=true
  export TFI_E2E_MARKER="$ARTIFACTS/marker.txt" TFI_E2E_TRUSTED=$([ "$TRUST_ENABLED" = true ] && echo 0 || echo 1)
fi
echo "e2e: workspace ready ($(( $(date +%s) - t0 )) s)"

cat >"$USER_DATA/User/settings.json" <<JSON
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": $TRUST_ENABLED,
  "security.workspace.trust.startupPrompt": "never",
  "security.workspace.trust.banner": "always",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "extensions.ignoreRecommendations": true,
  "chat.disableAIFeatures": true,
  "editor.hover.delay": 300,
  "editor.minimap.enabled": false,
  "window.commandCenter": false,
  "files.autoSave": "off",
  "git.enabled": false,
  "git.openRepositoryInParentFolders": "never",
  "tfInsight.interpreter": "$PYTHON",
  "tfInsight.session.timeoutSeconds": 240
}
JSON

# code-server windows are "remote": machine-scoped settings such as tfInsight.interpreter are
# read from the Machine settings, not the User ones.
mkdir -p "$USER_DATA/Machine"
printf '{\n  "tfInsight.interpreter": "%s"\n}\n' "$PYTHON" >"$USER_DATA/Machine/settings.json"

export PATH="$(dirname "$NODE24"):$PATH"
"$CODE_SERVER" --user-data-dir "$USER_DATA" --extensions-dir "$EXTENSIONS" \
  --install-extension "$VSIX" >"$ARTIFACTS/install.log" 2>&1 \
  || { cat "$ARTIFACTS/install.log" >&2; exit 1; }
echo "e2e: installed into code-server ($(( $(date +%s) - t0 )) s)"

PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
setsid "$CODE_SERVER" --bind-addr "127.0.0.1:$PORT" --auth none --user-data-dir "$USER_DATA" \
  --extensions-dir "$EXTENSIONS" --disable-telemetry --disable-update-check \
  $([ "$TRUST_ENABLED" = true ] || echo --disable-workspace-trust) --disable-getting-started-override "$WS" \
  >"$ARTIFACTS/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "e2e: code-server did not start" >&2; cat "$ARTIFACTS/code-server.log" >&2; exit 1; }
echo "e2e: code-server on 127.0.0.1:$PORT (pgid $CS_PID) ($(( $(date +%s) - t0 )) s)"

set +e
TFI_E2E_URL="http://127.0.0.1:$PORT/?folder=$WS" TFI_E2E_WS="$WS" TFI_E2E_ARTIFACTS="$ARTIFACTS" \
  TFI_E2E_MACHINE_SETTINGS="$USER_DATA/Machine/settings.json" \
  TFI_E2E_BROWSER_PROFILE="$TMP/chromium" node "$DRIVER"
status=$?
set -e
# The extension's server log, for the record.
find "$USER_DATA/logs" -name '*TF Insight*' -exec cp {} "$ARTIFACTS/tf-insight-output.log" \; 2>/dev/null || true
echo "e2e: finished with status $status in $(( $(date +%s) - t0 )) s; artifacts in $ARTIFACTS"
exit $status
