#!/usr/bin/env bash
# Build the VS Code extension package: dist/tf-insight-<version>.vsix
#   1. bundle the TypeScript client with esbuild (dist/extension.js)
#   2. bundle the Python side, pure Python for any Python 3.10+ (client/src/core/bundle.ts):
#      dist/bundled/libs/    tf_insight + tf_insight_server and the server's dependencies (pygls,
#                            lsprotocol, jedi...): the user's interpreter runs the server from here
#      dist/bundled/debugpy/ debugpy alone, for sessions and debugging in the user's interpreter
#      — nothing is ever installed into the user's interpreter
#   3. package with @vscode/vsce (no repository field, no LICENSE prompt, deps are bundled)
# Env: PYTHON (default: .venv/bin/python if present, else python3) builds the wheel and runs pip
# (which downloads the dependencies from the package index, or takes them from its cache).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
[ -d node_modules ] || npm ci --no-audit --no-fund

VERSION="$(node -p 'require("./package.json").version')"
rm -rf dist/bundled
mkdir -p dist/bundled

node client/esbuild.mjs --production

# The Python side as a wheel, then installed with its dependencies into libs/. Pure-Python wheels
# only (`--platform any`), for the oldest Python we support; pip evaluates environment markers
# for the Python running it, so the backports Python 3.10 needs are named explicitly.
if "$PYTHON" -c "import setuptools, wheel" 2>/dev/null; then
  ISOLATION=--no-build-isolation
else
  ISOLATION=
fi
WHEELS="$(mktemp -d)"
trap 'rm -rf "$WHEELS"' EXIT
"$PYTHON" -m pip wheel --quiet --no-deps $ISOLATION --wheel-dir "$WHEELS" .
rm -rf build
WHEEL="$(ls "$WHEELS"/tf_insight-*.whl)"
PURE=(--quiet --disable-pip-version-check --no-compile --only-binary=:all: --platform any --implementation py
      --python-version 3.10 --abi none)
"$PYTHON" -m pip install "${PURE[@]}" --target dist/bundled/libs "$WHEEL[server]" \
  "exceptiongroup>=1.1.1" "tomli>=1.1"
"$PYTHON" -m pip install "${PURE[@]}" --target dist/bundled/debugpy "debugpy>=1.8"
rm -rf dist/bundled/libs/bin dist/bundled/debugpy/bin

# Package from a staging folder holding only what ships: vsce would otherwise walk the whole
# repository (.venv with TensorFlow, node_modules, .tools) before applying .vscodeignore.
STAGE="$ROOT/dist/vsix-stage"
rm -rf "$STAGE"
mkdir -p "$STAGE/dist/bundled"
cp package.json .vscodeignore "$STAGE/"
cp dist/extension.js "$STAGE/dist/"
cp -r dist/bundled/libs dist/bundled/debugpy "$STAGE/dist/bundled/"
# The marketplace page: a short readme of the extension (the repository README links images
# and documents that are not in the package).
cp client/vsix-readme.md "$STAGE/README.md"
[ -f LICENSE ] && cp LICENSE "$STAGE/"
[ -d client/resources ] && mkdir -p "$STAGE/client" && cp -r client/resources "$STAGE/client/"
OUT="$ROOT/dist/tf-insight-$VERSION.vsix"
# No secret scan: it takes minutes over the bundled libraries' 6,000 files, all of them our own
# code or packages from the package index.
(cd "$STAGE" && "$ROOT/node_modules/.bin/vsce" package --allow-missing-repository --skip-license \
  --no-dependencies --no-update-package-json --no-rewrite-relative-links --allow-package-all-secrets \
  --out "$OUT")
rm -rf "$STAGE"
echo "built $OUT"
