#!/usr/bin/env bash
# Build the VS Code extension package: dist/tf-insight-<version>.vsix
#   1. bundle the TypeScript client with esbuild (dist/extension.js)
#   2. build the Python side (tf_insight + tf_insight_server) as a wheel into dist/bundled/
#      — the extension offers to `pip install` it into the chosen interpreter
#   3. package with @vscode/vsce (no repository field, no LICENSE prompt, deps are bundled)
# Env: PYTHON (default: .venv/bin/python if present, else python3) builds the wheel.
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

# Wheel of the Python side, without dependencies (pip resolves them at install time).
if "$PYTHON" -c "import setuptools, wheel" 2>/dev/null; then
  ISOLATION=--no-build-isolation
else
  ISOLATION=
fi
"$PYTHON" -m pip wheel --quiet --no-deps $ISOLATION --wheel-dir dist/bundled . 
rm -rf build
ls dist/bundled/tf_insight-*.whl >/dev/null

# Package from a staging folder holding only what ships: vsce would otherwise walk the whole
# repository (.venv with TensorFlow, node_modules, .tools) before applying .vscodeignore.
STAGE="$ROOT/dist/vsix-stage"
rm -rf "$STAGE"
mkdir -p "$STAGE/dist/bundled"
cp package.json .vscodeignore "$STAGE/"
cp dist/extension.js "$STAGE/dist/"
cp dist/bundled/tf_insight-*.whl "$STAGE/dist/bundled/"
# The marketplace page: a short readme of the extension (the repository README links images
# and documents that are not in the package).
cp client/vsix-readme.md "$STAGE/README.md"
[ -f LICENSE ] && cp LICENSE "$STAGE/"
[ -d client/resources ] && mkdir -p "$STAGE/client" && cp -r client/resources "$STAGE/client/"
OUT="$ROOT/dist/tf-insight-$VERSION.vsix"
(cd "$STAGE" && "$ROOT/node_modules/.bin/vsce" package --allow-missing-repository --skip-license \
  --no-dependencies --no-update-package-json --no-rewrite-relative-links --out "$OUT")
rm -rf "$STAGE"
echo "built $OUT"
