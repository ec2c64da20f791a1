"""The layering holds: no import cycle in the core or the server (type-only imports count: a
cycle of types is a cycle of design), the core imports no LSP, the server uses only the core's
public API, and docs/architecture.md names only modules that exist."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGES = {"tf_insight": ROOT, "tf_insight_server": ROOT / "server"}


def modules() -> dict[str, Path]:
    found = {}
    for package, base in PACKAGES.items():
        for path in (base / package).rglob("*.py"):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Our modules that `name` imports, anywhere in it (functions and TYPE_CHECKING too).
    `from pkg import module` is an import of `pkg.module`, not of `pkg`'s other contents."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *filter(None, [base])])
            submodules = {f"{base}.{alias.name}" for alias in node.names} & known.keys()
            found |= submodules
            if len(submodules) < len(node.names):
                found.add(base)
    return {module for module in found if module in known and module != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_cycle() -> None:
    known = modules()
    graph = {name: imported(name, path, known) for name, path in known.items()}
    assert graph["tf_insight.check.project"] >= {"tf_insight.check.context"}  # the walk sees edges
    assert cycles(graph) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_core_imports_no_lsp_and_no_tensorflow() -> None:
    outside = re.compile(r"^(?:pygls|lsprotocol|tf_insight_server|tensorflow|keras|tf_keras)\b")
    for name, path in modules().items():
        if not name.startswith("tf_insight."):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            assert not any(outside.match(imported_name) for imported_name in names), (name, names)


def test_architecture_document_names_real_modules() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:tf_insight|server|client|tests|bench)/[\w/.-]+)`", text))
    assert len(named) >= 20
    missing = sorted(path for path in named if not (ROOT / path.rstrip("/")).exists())
    assert missing == []


def public_api() -> dict[str, set[str]]:
    """The core's API for its adapters: each core package's `__all__` (a literal list)."""
    api = {}
    for name, path in modules().items():
        if name.split(".")[0] != "tf_insight" or path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(target, ast.Name) and target.id == "__all__"
                    for target in node.targets):
                api[name] = set(ast.literal_eval(node.value))
    return api


def test_public_api_names_exist() -> None:
    api = public_api()
    assert {"tf_insight", "tf_insight.check", "tf_insight.explain", "tf_insight.session"} <= set(api)
    for package, names in api.items():
        for name in sorted(names):
            exec(f"from {package} import {name}", {})  # as an adapter imports it


def test_the_debug_command_starts_without_the_session_runner() -> None:
    """`tf-insight debug` only needs `debuggee/`: `tf_insight.session` imports its names when
    first used, so the runner's imports (~50 ms) stay out of every debug start."""
    probe = "import sys, tf_insight.debug.cli; print(sorted(sys.modules))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, timeout=60)
    loaded = result.stdout
    assert "tf_insight.session.debuggee.debug_main" in loaded
    assert "tf_insight.session.runner" not in loaded and "tf_insight.explain" not in loaded


# Still on core internals; their owners move them to the public API (issue 29): sessions.py is
# being rewritten for the typed session messages, projects.py for project discovery.
NOT_YET_ON_THE_PUBLIC_API = {"tf_insight_server.sessions", "tf_insight_server.projects"}


def core_imports(path: Path) -> Iterator[tuple[str, str | None]]:
    """(module, name) of each import of the core in a file, anywhere in it; the name is None
    for `import module`."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names
                        if alias.name.split(".")[0] == "tf_insight")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                node.module.split(".")[0] == "tf_insight":
            yield from ((node.module, alias.name) for alias in node.names)


def test_server_imports_only_the_cores_public_api() -> None:
    api = public_api()
    server = {name: path for name, path in modules().items()
              if name.split(".")[0] == "tf_insight_server"}
    assert set(server) >= NOT_YET_ON_THE_PUBLIC_API
    internal = [f"{name}: {module} {imported}"
                for name, path in server.items() if name not in NOT_YET_ON_THE_PUBLIC_API
                for module, imported in core_imports(path) if imported not in api.get(module, ())]
    assert internal == []
    commands = ROOT / "server" / "tf_insight_server" / "commands.py"
    assert ("tf_insight.explain", "render_markdown") in set(core_imports(commands))  # sees them


WORKAROUNDS = "tf_insight_server.pygls_workarounds"  # the one module allowed pygls's privates


def _private(name: str) -> bool:
    return name.startswith("_") and len(name) > 1 and not name.endswith("__")


def pygls_private_names() -> set[str]:
    """What pygls keeps to itself: its modules, classes, functions, attributes and module-level
    names that begin with an underscore."""
    import pygls

    names = set()
    for path in Path(pygls.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.add(path.stem)
        names |= {node.name for node in ast.walk(tree)
                  if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
        names |= {node.attr for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)}
        names |= {target.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(target, ast.Name)}
    return {name for name in names if _private(name)}


def pygls_private_uses(source: str, private: set[str]) -> list[str]:
    """Where `source` reaches into pygls: an import of a private pygls module or name, a
    pygls-private attribute (on `self` only in a class derived from one of pygls's), or one
    named in getattr/setattr/hasattr/delattr."""
    tree = ast.parse(source)
    uses: list[tuple[int, str]] = []
    from_pygls = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            uses += [(node.lineno, f"import {alias.name}") for alias in node.names
                     if alias.name.split(".")[0] == "pygls"
                     and any(map(_private, alias.name.split(".")))]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pygls":
            from_pygls |= {alias.asname or alias.name for alias in node.names}
            uses += [(node.lineno, f"from {node.module} import {alias.name}")
                     for alias in node.names
                     if any(map(_private, [*(node.module or "").split("."), alias.name]))]
    pygls_classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and any(
        isinstance(base, ast.Name) and base.id in from_pygls for base in node.bases)]
    in_pygls_class = {id(inner) for cls in pygls_classes for inner in ast.walk(cls)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private and not (
                isinstance(node.value, ast.Name) and node.value.id == "self"
                and id(node) not in in_pygls_class):
            uses.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in {"getattr", "setattr", "hasattr", "delattr"} and \
                len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and \
                node.args[1].value in private:
            uses.append((node.lineno, f"{node.func.id}(..., {node.args[1].value!r})"))
    return [f"line {line}: {use}" for line, use in sorted(uses)]


def test_finder_of_pygls_private_uses_finds_them() -> None:
    private = pygls_private_names()
    assert {"_request_futures", "_send_response", "_create_text_document", "_base_server",
            "_source", "_handle_notification"} <= private
    source = '''
from pygls.lsp._base_server import BaseLanguageServer
from pygls.protocol import LanguageServerProtocol, _dict_to_object
class Protocol(LanguageServerProtocol):
    def answer(self):
        self._send_response(1)
class Ours:
    def __init__(self):
        self._source = ""
def patch(workspace, ls):
    workspace._create_text_document = None
    getattr(workspace, "_sync_kind", None)
    return ls.protocol._request_futures
'''
    assert pygls_private_uses(source, private) == [
        "line 2: from pygls.lsp._base_server import BaseLanguageServer",
        "line 3: from pygls.protocol import _dict_to_object",
        "line 6: ._send_response", "line 11: ._create_text_document",
        "line 12: getattr(..., '_sync_kind')", "line 13: ._request_futures"]


def test_only_the_workarounds_module_uses_pygls_private_names() -> None:
    private = pygls_private_names()
    server = {name: path for name, path in modules().items()
              if name.split(".")[0] == "tf_insight_server"}
    assert WORKAROUNDS in server
    uses = {name: found for name, path in server.items() if name != WORKAROUNDS
            if (found := pygls_private_uses(path.read_text(encoding="utf-8"), private))}
    assert uses == {}
