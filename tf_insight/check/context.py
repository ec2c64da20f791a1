"""The semantic model of a module, as rules read it: its index and imports, what names refer
to (`qualname`, `function_named`), its Keras classes and flavour, what its decorators do, which
of its statements an incremental analysis looks at (the focus), and values the rules share
(`shared`). The graph model built on it (`tf_insight.check.graph_model`: which functions run
in graph mode) is `module.graph`; what it needs of the project around it is
:class:`ProjectServices`, which the project provides.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from functools import cached_property
from pathlib import Path, PurePath
from typing import Protocol, TypeVar, cast

from tf_insight.check import names
from tf_insight.check.graph_model import GraphContext, GraphModel
from tf_insight.check.importers import builds_on_symbolic_inputs, trace_marks
from tf_insight.check.imports import ImportMap, callee, keyword
from tf_insight.check.index import (
    MANY_BINDINGS,
    ClassInfo,
    FunctionInfo,
    ModuleIndex,
    ScopeNodes,
    self_attribute,
    self_calls,
)
from tf_insight.check.keras_flavor import FileKeras, Flavor, ProjectKeras, file_keras
from tf_insight.check.resolve import Definition
from tf_insight.check.shared import Shared
from tf_insight.check.source import SourceFile, first_line, statement_at
from tf_insight.check.tf1_names import TF1_ONLY_NAMES
from tf_insight.check.trace_reach import Region
from tf_insight.config import Config
from tf_insight.files import SkippedFile, read_text
from tf_insight.findings import Span

# what can define a module's names without naming them: `from m import *`, a module
# `__getattr__`, writes through `globals()`
_MAY_MAKE_NAMES = re.compile(r"\bimport\s*\*|\b__getattr__\b|\bglobals\(\)")

# Top-level packages whose names never need jedi, besides the standard library's: TF/Keras
# names resolve through the import map, and none of these defines a TF wrapper a user would
# decorate with, a Keras class or a user's tf.function (asking jedi about every
# `@pytest.mark.*` of a test suite took most of its time).
LIBRARIES = frozenset({
    "tensorflow", "keras", "tf_keras", "numpy", "absl", "six", "pytest", "torch", "jax",
    "flax", "sklearn", "scipy", "pandas", "matplotlib", "tensorflow_datasets", "tensorboard",
    "tqdm",
})
# TensorFlow 1.x graph-building APIs, gone from TF 2's namespace: a module that calls them as
# `tf.<name>` builds its graph once and runs it in a session, where nothing is traced per step
# (their `tf.compat.v1` forms don't count: TF 2 code mixes them in on purpose)
TF1_GRAPH_APIS = frozenset({
    "placeholder", "Session", "InteractiveSession", "get_variable", "variable_scope",
    "global_variables_initializer", "disable_eager_execution", "disable_v2_behavior",
    "AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "RMSPropOptimizer",
    "AdagradOptimizer", "get_default_graph", "py_func",
})
TF1_GRAPH_PREFIXES = ("tensorflow.contrib.", "tensorflow.layers.")
# what makes the process TensorFlow 1.x graph code when a module calls it as it is imported
# (the `tf.compat.v1` forms too, unlike the graph APIs above)
TF2_SWITCHES_OFF = frozenset({"tensorflow.compat.v1.disable_v2_behavior",
                              "tensorflow.compat.v1.disable_eager_execution"})
# what turns tf.function off for the process when given True
EAGER_SWITCHES = frozenset({"tensorflow.config.run_functions_eagerly",
                            "tensorflow.config.experimental_run_functions_eagerly"})
# other runtimes, which a Keras class may front: their `run`/`invoke` take NumPy arrays
RUNTIME_SESSIONS = frozenset({"onnxruntime.InferenceSession", "tensorflow.lite.Interpreter",
                              "tflite_runtime.interpreter.Interpreter"})
INTERPRETER_METHODS = frozenset({"allocate_tensors", "get_input_details", "get_output_details"})
OPTIMIZER_STEPS = ("apply_gradients", "minimize")


def is_library(name: str) -> bool:
    """Whether a dotted name comes from one of `LIBRARIES` or the standard library."""
    top = name.split(".", 1)[0]
    return top in LIBRARIES or top in sys.stdlib_module_names


T = TypeVar("T")


class ProjectServices(Protocol):
    """What a module's graph model (and the rules reading it) ask of the project around it.
    :class:`tf_insight.check.project.Project` provides it; a protocol, so that this model does
    not depend on the project that builds it."""

    config: Config
    root: Path | None  # the project's folder (settings and per-file patterns are relative to it)

    @property
    def keras(self) -> ProjectKeras: ...

    def resolve_reexported_modules(self, context: ModuleContext) -> None: ...

    def runs_eagerly(self, path: str) -> str | None: ...

    def untraced_regions(self, path: str) -> list[Region]: ...

    def superseded(self, path: str, classes: Iterable[str]) -> str | None: ...

    def keras_of(self, path: str) -> ProjectKeras: ...

    def external_keras_kind(self, context: ModuleContext, base: ast.AST) -> str | None: ...

    def external_class_defines(self, context: ModuleContext, base: ast.AST,
                               method: str) -> bool: ...

    def external_method_self_calls(self, context: ModuleContext, base: ast.AST,
                                   method: str) -> frozenset[str]: ...

    def external_decorator_effects(self, context: ModuleContext, target: ast.AST) -> set[str]: ...

    def external_function(self, context: ModuleContext, node: ast.AST
                          ) -> tuple[ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef] | None: ...

    def external_definition_path(self, context: ModuleContext, node: ast.AST
                                 ) -> Definition | None: ...

    def module_file(self, module: str, importer: str) -> str | None: ...

    def load_module(self, path: str) -> ModuleContext | None: ...


class ModuleContext:
    """Everything rules need about one module; its graph model (`graph`) is computed on first
    use."""

    def __init__(
        self,
        source: SourceFile,
        project: ProjectServices,
        seeds: dict[str, GraphContext] | None = None,
        keras: FileKeras | None = None,
    ) -> None:
        """`keras`: the Keras to analyse the file for (default: the one it runs on)."""
        assert source.tree is not None
        self.source = source
        self.tree: ast.Module = source.tree
        self.project = project
        self.index = ModuleIndex.build(self.tree, source.derived_facts("index"))
        self.imports = ImportMap.build(self.index, self.tree)
        if "tf." in source.text and "tf" not in self.imports.aliases and not self._binds("tf"):
            # a notebook cell or snippet whose import is out of view: `tf` is TensorFlow
            self.imports.assume("tf", "tensorflow")
        project.resolve_reexported_modules(self)
        self.keras: FileKeras = keras or file_keras(
            source.text, self.imports, project.config.keras,
            project.keras_of(source.path) if project.config.keras == "auto" else None)
        self.flavor: Flavor = self.keras.flavor
        self.seeds = seeds or {}  # graph contexts other modules' graph code gives this one's functions
        self._qualnames: dict[ast.AST, str | None] = {}
        self._focus: frozenset[int] | None = None
        self._words: dict[str, bool] = {}
        self._focused_parts: list[ModuleIndex] | None = None
        self._reused_kinds: dict[ClassInfo, str | None] = {}
        self._effects: dict[ast.AST, set[str]] = {}
        self._shared: dict[tuple[Shared[object], tuple[Hashable, ...]], object] = {}

    def shared(self, key: Shared[T], factory: Callable[[], T], *part: Hashable) -> T:
        """The module's value of `key` (for `part`: a scope, a class name...), made by
        `factory` for the first asker and shared by the rules that ask after it."""
        slot = (key, part)
        if slot not in self._shared:
            self._shared[slot] = factory()
        return cast(T, self._shared[slot])

    def calls_named(self, *names: str) -> list[tuple[ast.Call, FunctionInfo | None]]:
        """The calls of functions with these names, under any alias (`calls_named("function")`:
        `tf.function(g)`, `function(g)`, `tff(g)` after `from tensorflow import function as
        tff`), in walk order, with their scopes: a superset of the calls of those functions
        (`other.function(g)` too), for rules that look for a few functions."""
        return self.index.calls_named(self.callee_names(*names))

    def calls_of(self, function: FunctionInfo) -> list[tuple[ast.Call, FunctionInfo | None]]:
        """The module's calls of `function` itself (by its name, resolved to it), with their
        scopes."""
        return [(call, scope) for call, scope in self.calls_named(function.name)
                if self.function_named(call.func, scope) is function]

    def assigned_calls(self, *names: str
                       ) -> Iterator[tuple[ast.Assign, ast.Call, FunctionInfo | None]]:
        """The assignments of such calls (`rng = np.random.default_rng()`), the call, and
        its scope (see `calls_named`)."""
        for call, scope in self.calls_named(*names):
            node = self.index.parent(call)
            if isinstance(node, ast.Assign) and node.value is call:
                yield node, call, scope

    def callee_names(self, *names: str) -> set[str]:
        """These names, and the local names an import binds to one of them."""
        wanted = set(names)
        wanted.update(local for local, raw in self.imports.aliases.items()
                      if raw.rsplit(".", 1)[-1] in names)
        return wanted

    def mentions(self, *words: str) -> bool:
        """Whether the source text contains any of these words: rules about one API exit
        early, as ruff's do, in modules that never spell it (each word looked for once)."""
        return any(self._spelled(word) for word in words)

    def _spelled(self, word: str) -> bool:
        found = self._words.get(word)
        if found is None:
            found = self._words[word] = word in self.source.text
        return found

    @property
    def path(self) -> str:
        return self.source.path

    @cached_property
    def test_module(self) -> bool:
        """A test module (`test_*.py`, `*_test.py`): each case runs once, on a few inputs, so
        what matters only over a long run (a cost per call, a value shown at every step) does
        not matter there."""
        stem = PurePath(self.path).stem
        return stem.startswith("test_") or stem.endswith("_test")

    @property
    def relevant(self) -> bool:
        """False for modules that neither use TF/Keras nor are called from graph code."""
        return self.imports.uses_tensorflow_or_keras or bool(self.seeds)

    @cached_property
    def runs_eagerly(self) -> str | None:
        """Why this module's tf.functions and Keras steps run eagerly: a module of its package
        turns tf.function off as it is imported, or the project only trains eagerly
        (`Project.runs_eagerly`), or it is a script that traces nothing; tf.data functions
        are still traced."""
        return self.project.runs_eagerly(self.path) or self._script_tracing_nothing

    @property
    def _script_tracing_nothing(self) -> str | None:
        """Why a script's code all runs eagerly: no module can import it (its file name is
        no module name: `cnn.tensorflow.py`, `01-train.py`), so only it uses its classes and
        functions, and it traces nothing (`importers.trace_marks`: no tf.function, `fit`,
        `predict`, `compile`; no model built on symbolic inputs). Not a notebook, nor an
        editor's unsaved buffer (`untitled:Untitled-1`): both are written a cell or a line at
        a time, and the `fit` that will trace their layers may not be there yet."""
        name = os.path.basename(self.path)
        stem, extension = os.path.splitext(name)
        if extension != ".py" or stem.isidentifier():
            return None
        text = self.source.text
        if trace_marks(text) or builds_on_symbolic_inputs(text):
            return None
        return (f"`{name}` is a script no module can import, which traces nothing (no "
                "tf.function, `fit`, `predict`, `compile` or model built on symbolic inputs)")

    @cached_property
    def untraced(self) -> list[Region]:
        """The regions (first line, last line, why) of this module's functions and methods
        that the project's eager training uses and none of its tf.functions reaches
        (`Project.untraced_regions`)."""
        return self.project.untraced_regions(self.path)

    @cached_property
    def superseded(self) -> str | None:
        """Why this module never runs, being a superseded copy of one that does
        (`Project.superseded`): nothing imports it, and an imported module defines its
        classes too. A module run on its own is no copy: a test module (pytest runs
        `test_*.py`, `*_test.py`) or one with a `__main__` block."""
        name = os.path.basename(self.path)
        if name.startswith("test_") or name.endswith("_test.py") or (
                "__main__" in self.source.text):
            return None
        return self.project.superseded(self.path, self.index.module_classes())

    @cached_property
    def unimportable(self) -> str | None:
        """Why this module cannot be imported, so none of its code runs: a module-level
        `from .xvector import FrameLayer` whose module is a project file that nowhere names
        `FrameLayer` (nor a submodule of that name), with no `import *`, `__getattr__` or
        `globals()` that could make it. None otherwise."""
        for statement in self.tree.body:
            if not isinstance(statement, ast.ImportFrom):
                continue
            module = "." * statement.level + (statement.module or "")
            target = self.project.module_file(module, self.path)
            if target is None:
                continue
            try:
                text = read_text(target)
            except (OSError, SkippedFile):
                continue
            if _MAY_MAKE_NAMES.search(text):
                continue
            folder = os.path.dirname(target)
            for alias in statement.names:
                name = alias.name
                if name != "*" and re.search(rf"\b{re.escape(name)}\b", text) is None and not (
                        os.path.basename(target) == "__init__.py" and (
                            os.path.isfile(os.path.join(folder, f"{name}.py"))
                            or os.path.isdir(os.path.join(folder, name)))):
                    where = os.path.relpath(target, self.project.root or folder)
                    return (f"it cannot be imported: `from {module} import {name}` fails, as "
                            f"`{where}` defines no `{name}`")
        return None

    @cached_property
    def tf1_graph_code(self) -> str | None:
        """Why this module is TensorFlow 1.x graph code, or None: it calls a TF 1.x
        graph-building API that TF 2 no longer has (`tf.contrib...`, `tf.get_variable`,
        `tf.layers.dense`, `tf.placeholder`...), or any other `tf.<name>` only TF 1.x has
        (`tf.log`, `tf.to_float`: `TF1_ONLY_NAMES`), or it calls
        `tf.compat.v1.disable_v2_behavior()` or `disable_eager_execution()` at its top level
        (as it is imported, or as a script), so its layers are called once to build a
        graph that a session (or a Keras of that time) runs; TF 2's tracing (a trace per input
        signature, Python once per trace) is not how it runs. Or its project's requirements
        pin TensorFlow 1.x (`tensorflow==1.13.1`, `tensorflow<2`)."""
        prefixed = self.mentions("contrib", "layers.")
        for call, scope in self.index.calls:
            func = call.func
            last = (func.attr if isinstance(func, ast.Attribute)
                    else func.id if isinstance(func, ast.Name) else None)
            if not prefixed and last not in TF1_GRAPH_APIS and last not in TF1_ONLY_NAMES:
                continue  # most calls: no look-up
            qualname = self.qualname(func) or ""
            parts = qualname.split(".")
            if qualname.startswith(TF1_GRAPH_PREFIXES) or (
                    parts[0] == "tensorflow" and parts[-1] in TF1_GRAPH_APIS
                    and (len(parts) == 2 or parts[:2] == ["tensorflow", "train"])):
                return (f"it uses the TensorFlow 1.x graph API `{self.source.segment(func)}` "
                        f"(line {call.lineno}): its graph is built once and run in a session")
            if len(parts) == 2 and parts[0] == "tensorflow" and parts[1] in TF1_ONLY_NAMES:
                return (f"it uses `{self.source.segment(func)}` (line {call.lineno}), which "
                        "only TensorFlow 1.x has: its graph is built once, not traced per call")
            if qualname in TF2_SWITCHES_OFF and scope is None:
                return (f"it turns TensorFlow 2's behaviour off as it is imported "
                        f"(`{self.source.segment(func)}`, line {call.lineno}): its graph is "
                        "built once and run in a session")
        pinned = self.pinned_tensorflow_1
        return (f"the project requires {pinned}, TensorFlow 1.x: its graph is built once, not "
                "traced per call") if pinned else None

    @property
    def pinned_tensorflow_1(self) -> str:
        """The requirement by which this module's project pins TensorFlow 1.x
        (`tensorflow==1.13.1`, `tensorflow<2`), or ""."""
        return self.project.keras_of(self.path).tensorflow_1 if self.project.root else ""

    @cached_property
    def eager_classes(self) -> list[tuple[ClassInfo, str]]:
        """Classes whose methods run eagerly, and why: their `__init__` calls
        `tf.config.run_functions_eagerly(True)` (no instance exists before tf.function is
        off), or they are Keras fronts for another runtime (`call` runs an ONNX Runtime
        session or a TFLite interpreter kept on `self`, which take NumPy arrays: such a class
        cannot be traced, by design), or Keras classes whose `call` fits something itself
        (runs an optimizer's `apply_gradients`/`minimize`, or a method of the class that does:
        a training loop per call, as a Gaussian process or an adaptive filter fitted to each
        input is, run eagerly)."""
        found = []
        switches = self.mentions("run_functions_eagerly")
        runtimes = self.mentions("InferenceSession", "Interpreter")
        steps = self.mentions(*OPTIMIZER_STEPS)
        for cls in self.index.classes if switches or runtimes or steps else ():
            init = cls.methods.get("__init__")
            switch = next((call for call in (init.calls if init is not None and switches else ())
                           if call.args and isinstance(call.args[0], ast.Constant)
                           and call.args[0].value is True
                           and self.refers_to(call.func, EAGER_SWITCHES)), None)
            if switch is not None:
                found.append((cls, f"`{cls.name}.__init__` calls "
                                   f"`tf.config.run_functions_eagerly(True)` (line "
                                   f"{switch.lineno}), so the methods of `{cls.name}` run eagerly"))
                continue
            run = self._runs_another_runtime(cls) if runtimes else None
            step = self._fits_in_call(cls) if steps and run is None else None
            if run is not None:
                found.append((cls, f"`{cls.name}.call` runs `{self.source.segment(run.func)}` "
                                   f"(line {run.lineno}), another runtime, on NumPy arrays: "
                                   f"`{cls.name}` only runs eagerly"))
            elif step is not None:
                found.append((cls, f"`{cls.name}.call` runs optimizer steps itself "
                                   f"(`{self.source.segment(step.func)}`, line {step.lineno}): "
                                   f"it fits on each call, which `{cls.name}` does eagerly"))
        return found

    def _fits_in_call(self, cls: ClassInfo) -> ast.Call | None:
        """In a Keras class, a call of an optimizer step (`opt.apply_gradients(...)`,
        `opt.minimize(...)`) in `call` or in a method `call` calls (`self.optimize(x, opt)`)."""
        call_method = cls.methods.get("call")
        if call_method is None or self.keras_kind(cls) is None:
            return None
        methods = [call_method, *(cls.methods[name] for name in self_calls(call_method.node) or ()
                                  if name in cls.methods and name != "call")]
        return next((call for method in methods for call in method.calls
                     if isinstance(call.func, ast.Attribute)
                     and call.func.attr in OPTIMIZER_STEPS), None)

    def _runs_another_runtime(self, cls: ClassInfo) -> ast.Call | None:
        """In a Keras class, the call in `call` of `run`/`invoke` on a `self` attribute that a
        method sets to an ONNX Runtime session or a TFLite interpreter, or that it uses as one
        (`allocate_tensors()`, `get_input_details()`: an interpreter given to `__init__`)."""
        call_method = cls.methods.get("call")
        if call_method is None or self.keras_kind(cls) is None:
            return None
        sessions = {self_attribute(target) for method in cls.methods.values()
                    for node in method.nodes.of(ast.Assign)
                    if isinstance(node.value, ast.Call)
                    and self.refers_to(node.value.func, RUNTIME_SESSIONS)
                    for target in node.targets}
        sessions |= {self_attribute(call.func.value) for method in cls.methods.values()
                     for call in method.calls if isinstance(call.func, ast.Attribute)
                     and call.func.attr in INTERPRETER_METHODS}
        sessions.discard(None)
        return next((call for call in call_method.calls
                     if isinstance(call.func, ast.Attribute) and call.func.attr in ("run", "invoke")
                     and self_attribute(call.func.value) in sessions), None)


    def qualname(self, node: ast.AST) -> str | None:
        # Rules ask about the same nodes many times; the answer never changes.
        try:
            return self._qualnames[node]
        except KeyError:
            found = self.imports.qualname(node)
            if found is not None and self._rebound_where_read(node):
                found = None
            self._qualnames[node] = found
            return found

    def _rebound_where_read(self, node: ast.AST) -> bool:
        """`layers.Dense` in a function with a parameter `layers`: the name an expression
        starts from is bound there, so it is not the module's import."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        scope = self.index.scope_of(node)
        return scope is not None and scope.binds(node.id)

    def span(self, node: ast.AST) -> Span:
        return self.source.span(node)

    def refers_to(self, node: ast.AST, qualnames: frozenset[str]) -> bool:
        """Whether an expression names one of these functions or classes, under any alias:
        `self.qualname(node) in qualnames`, but local names and attributes named like none
        of them (most callees) need no look-up, as every spelling of a name ends with its
        own."""
        if isinstance(node, ast.Name):
            if node.id not in self.imports.aliases:
                return False  # a local name
        elif isinstance(node, ast.Attribute) and node.attr not in _last_parts(qualnames):
            return False
        return self.qualname(node) in qualnames

    # ---- focus: the statements an incremental analysis looks at ------------------------------

    @property
    def focus(self) -> frozenset[int] | None:
        """The top-level statements (ids) whose findings are wanted, None for all: after an
        edit, `tf_insight.check.incremental` reuses the others' findings. Rules build their
        tables from the whole module and look for findings in `focused_*` only."""
        return self._focus

    @focus.setter
    def focus(self, statements: frozenset[int] | None) -> None:
        self._focus = statements
        self._focused_parts = None if statements is None or self.index.parts is None else [
            part for statement, part in zip(self.tree.body, self.index.parts, strict=True)
            if id(statement) in statements]

    def in_focus(self, line: int) -> bool:
        """Whether a line belongs to a focused statement."""
        return self._focus is None or id(self.unit_of(line)) in self._focus

    def unit_of(self, line: int) -> ast.stmt:
        """The top-level statement a line belongs to: from its first decorator to the line
        before the next statement (the lines before the first belong to the first)."""
        return self.tree.body[statement_at(self.unit_starts, line)]

    @cached_property
    def unit_starts(self) -> list[int]:
        """The first line of each top-level statement (its first decorator's)."""
        return [first_line(statement) for statement in self.tree.body]

    @property
    def everything_in_focus(self) -> bool:
        """Whether the `focused_*` views are the whole module's."""
        return self._focused_parts is None

    def focused_functions(self) -> list[FunctionInfo]:
        if self._focused_parts is None:
            return self.index.functions
        return [function for part in self._focused_parts for function in part.functions]


    def focused_classes(self) -> list[ClassInfo]:
        if self._focused_parts is None:
            return self.index.classes
        return [cls for part in self._focused_parts for cls in part.classes]

    def focused_calls(self) -> list[tuple[ast.Call, FunctionInfo | None]]:
        if self._focused_parts is None:
            return self.index.calls
        return [call for part in self._focused_parts for call in part.calls]

    def focused_scopes(self) -> Iterator[tuple[FunctionInfo | None, ScopeNodes]]:
        """The module scope's nodes (of the focused statements) and each focused function's."""
        if self._focused_parts is None:
            yield None, self.index.module_nodes
        else:
            yield None, ScopeNodes.joined(part.module_nodes for part in self._focused_parts)
        for function in self.focused_functions():
            yield function, function.nodes

    def is_tf_function(self, node: ast.AST) -> bool:
        """`tf.function`, any alias."""
        return self.refers_to(node, names.TF_FUNCTION)

    # ---- Keras classes -------------------------------------------------------------------

    def _binds(self, name: str) -> bool:
        """Whether any scope of the module binds `name` (an assignment, a parameter, a def)."""
        if any(node.ctx.__class__ is not ast.Load for node in self.index.module_nodes.named(name)):
            return True
        return any(name in function.local_names or function.name == name
                   for function in self.index.functions) or any(
            cls.name == name for cls in self.index.classes)

    def keras_kind(self, cls: ClassInfo) -> str | None:
        return self._keras_kinds.get(cls)

    @cached_property
    def _keras_kinds(self) -> dict[ClassInfo, str | None]:
        kinds: dict[ClassInfo, str | None] = dict(self._reused_kinds)
        local = self.index.module_classes()

        def kind_of(cls: ClassInfo, depth: int) -> str | None:
            if cls in kinds:
                return kinds[cls]
            kinds[cls] = None  # cycles: `class A(A)` and friends
            found: str | None = None
            for base in cls.node.bases:
                qualname = self.qualname(base)
                if qualname is not None:
                    found = names.keras_class_kind(qualname)
                if found is None and isinstance(base, ast.Name) and base.id in local:
                    found = kind_of(local[base.id], depth + 1)
                if found is None and depth < 4 and self.is_imported(base):
                    found = self.project.external_keras_kind(self, base)
                if found:
                    break
            kinds[cls] = found
            return found

        for cls in self.index.classes:
            kind_of(cls, 0)
        return kinds

    def is_imported(self, node: ast.AST) -> bool:
        """True for names bound by a relative import or one from outside `LIBRARIES` and the
        standard library (the others resolve without jedi)."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        if node.id in self.imports.relative:
            return True
        raw = self.imports.aliases.get(node.id)
        return raw is not None and not is_library(raw)

    # ---- decorators ----------------------------------------------------------------------

    def decorator_effects(self, decorator: ast.AST) -> set[str]:
        """What a decorator does, among 'tf.function', 'custom_gradient', 'recompute_grad',
        'do_not_convert' — also for decorators defined in other modules and packages."""
        if decorator not in self._effects:
            self._effects[decorator] = self._decorator_effects(decorator)
        return self._effects[decorator]

    def _decorator_effects(self, decorator: ast.AST) -> set[str]:
        target = callee(decorator)
        qualname = self.qualname(target)
        if qualname is not None:
            effects = _effects_of_qualname(qualname)
            if effects or not self.is_imported(target):
                return effects
        if isinstance(target, ast.Name):
            local = self.index.module_functions().get(target.id)
            if local is not None:
                return self.body_effects(local.node)
        if self.is_imported(target):
            return self.project.external_decorator_effects(self, target)
        return set()

    def body_effects(self, function: ast.AST) -> set[str]:
        """Effects of the TF wrappers a function's body applies (a decorator factory), and
        'drops keywords' when its wrapper takes `**kwargs` and passes none on."""
        effects: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Name | ast.Attribute):
                qualname = self.qualname(node)
                if qualname is not None:
                    effects |= _effects_of_qualname(qualname)
        if effects and _drops_keywords(function):
            effects.add("drops keywords")
        return effects

    # ---- the graph model -----------------------------------------------------------------

    @cached_property
    def graph(self) -> GraphModel:
        """Which functions of the module run in graph mode, and why."""
        return GraphModel(self)

    def reuse_model(self, previous: ModuleContext, parts: Iterable[ModuleIndex]) -> None:
        """Take over what the last version of this file (`previous`) worked out of the
        statements whose index `parts` it shares with it (the same nodes and functions) and
        that reference no statement the edit changed: the effects of their decorators, the
        Keras kinds of their classes, the calls their graph functions make of others. The
        model is then built from those (incremental analysis: a keystroke's model costs a
        fraction of a whole one). Before `graph.build`."""
        parts = list(parts)
        self.graph.reuse(previous.graph, parts)
        for part in parts:
            decorators = [*(d for function in part.functions for d in function.decorators),
                          *(d for cls in part.classes for d in cls.node.decorator_list)]
            self._effects.update((decorator, previous._effects[decorator])
                                 for decorator in decorators if decorator in previous._effects)
            self._reused_kinds.update((cls, previous._keras_kinds[cls]) for cls in part.classes
                                      if cls in previous._keras_kinds)


    def enclosing_class(self, function: FunctionInfo) -> ClassInfo | None:
        while function.cls is None and function.outer is not None:
            function = function.outer
        return function.cls


    def imported_function(self, node: ast.AST
                          ) -> tuple[ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        """The definition of a function this module imports, in the module that defines it."""
        return self.project.external_function(self, node)

    def function_named(
        self, node: ast.AST, scope: FunctionInfo | None
    ) -> FunctionInfo | None:
        """The function an expression names: a lambda, a local or module function, a method
        (`self.f`) of the enclosing class."""
        if isinstance(node, ast.Lambda):
            return self.index.function_of(node)
        if isinstance(node, ast.Name):
            nested = self.index.nested_functions
            outer = scope
            while outer is not None:
                found = nested.get(outer, {}).get(node.id)
                if found is not None:
                    return found
                outer = outer.outer
            return self.index.module_functions().get(node.id)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
            and scope is not None
        ):
            cls = self.enclosing_class(scope)
            if cls is not None:
                return self.method_of(cls, node.attr)
        return None

    def made_function(self, node: ast.AST, scope: FunctionInfo | None) -> FunctionInfo | None:
        """The function a factory call returns (`compile(loss=weighted_loss(5.0))`, where
        `weighted_loss` defines `loss` and returns it): its first `return` of a function."""
        if not isinstance(node, ast.Call):
            return None
        factory = self.function_named(node.func, scope)
        if factory is None:
            return None
        for returned in factory.nodes.of(ast.Return):
            if returned.value is not None and (made := self.function_named(returned.value, factory)):
                return made
        return None

    def method_of(self, cls: ClassInfo, name: str) -> FunctionInfo | None:
        """A method of a class or of its same-module base classes."""
        seen: set[str] = set()
        local = self.index.module_classes()
        current: ClassInfo | None = cls
        while current is not None and current.name not in seen:
            seen.add(current.name)
            if name in current.methods:
                return current.methods[name]
            bases = [b.id for b in current.node.bases if isinstance(b, ast.Name) and b.id in local]
            current = local[bases[0]] if bases else None
        return None

    def is_dataset(self, node: ast.AST, scope: FunctionInfo | None) -> bool:
        """An expression that holds a `tf.data.Dataset`: a `tf.data...` call chain, a Keras
        utility that returns one (`keras.utils.image_dataset_from_directory(...)` and
        friends), dataset methods on one, a call of a function of the module that returns one,
        or a name that every assignment binds to one (also as an element of a tuple such a
        function returns: `train, val = make_datasets(root)`)."""
        return self.dataset_root(node, scope) is not None

    def dataset_root(
        self, node: ast.AST, scope: FunctionInfo | None, depth: int = 0
    ) -> ast.Call | None:
        """The call that creates the dataset an expression holds, following dataset methods
        and assignments (None when not known to be a dataset)."""
        while depth < 8:
            if isinstance(node, ast.Call):
                qualname = self.qualname(node.func)
                if qualname is not None:
                    if (qualname.startswith("tensorflow.data.")
                            or qualname in names.KERAS_DATASET_FACTORIES):
                        return node
                    split = keyword(node, "split")
                    if qualname == "tensorflow_datasets.load" and isinstance(split, ast.Constant):
                        return node  # one split: a Dataset (several, or none: a list or dict)
                    return None
                if isinstance(node.func, ast.Attribute) and (
                    node.func.attr in names.DATASET_CHAIN_METHODS
                ):
                    node = node.func.value
                    continue
                return self._returned_dataset(node, None, scope, depth + 1)
            if isinstance(node, ast.Name):
                return self._dataset_name_root(node.id, scope, depth + 1)
            return None
        return None

    def _returned_dataset(self, call: ast.Call, position: int | None,
                          scope: FunctionInfo | None, depth: int) -> ast.Call | None:
        """The dataset a call of a function of the module returns (at `position` of the tuple
        it returns), when every `return` of the function gives one."""
        function = self.function_named(call.func, scope)
        if function is None or depth >= 8:
            return None
        returns = [node.value for node in function.nodes.of(ast.Return)]
        root: ast.Call | None = None
        for value in returns:
            if position is not None:
                if not (isinstance(value, ast.Tuple) and len(value.elts) > position
                        and not any(isinstance(e, ast.Starred) for e in value.elts)):
                    return None
                value = value.elts[position]
            found = self.dataset_root(value, function, depth) if value is not None else None
            if found is None:
                return None
            root = root or found
        return root

    def _dataset_name_root(
        self, name: str, scope: FunctionInfo | None, depth: int
    ) -> ast.Call | None:
        """A name is a dataset when every assignment to it in its scope is one (`ds =
        ds.batch(8)` counts, and so does `ds = fix_labels(ds)`, a function of the module that
        returns dataset methods on it), and nothing else (a loop, a `with`, a tuple target) binds it;
        or when it is bound once, as an element of the tuple a function of the module returns
        (`train, val = make_datasets(root)`), to a dataset."""
        if scope is not None and name not in scope.local_names:
            scope = None  # a module-level dataset used inside a function
        nodes = scope.nodes if scope is not None else self.index.module_nodes
        unpacked = self._unpacked_from_call(name, nodes)
        if unpacked is not None:
            return self._returned_dataset(*unpacked, scope, depth)
        assignments = nodes.assignments_to(name)
        if not assignments or len(assignments) > MANY_BINDINGS or not all(
                isinstance(node, ast.Assign) for node in assignments):
            return None
        values = [node.value for node in assignments if isinstance(node, ast.Assign)]
        stores = sum(1 for node in nodes.named(name) if node.ctx.__class__ is ast.Store)
        if stores != len(values):
            return None
        root: ast.Call | None = None
        for value in values:
            if _chains_on(value, name) or self._passes_through(value, name, scope):
                continue
            found = self.dataset_root(value, scope, depth)
            if found is None:
                return None
            root = root or found
        return root


    def _passes_through(self, value: ast.AST, name: str, scope: FunctionInfo | None) -> bool:
        """`ds = fix_labels(ds, k)`: a call of a function of the module (not a method) given
        `name`, whose every `return` gives back that parameter or dataset methods on it
        (`return ds.map(fix)`): a dataset transformed, as `ds = ds.batch(8)` is."""
        if not isinstance(value, ast.Call):
            return False
        function = self.function_named(value.func, scope)
        if function is None or function.cls is not None:
            return False
        names = function.parameter_names
        given = [names[position] for position, argument in enumerate(value.args)
                 if isinstance(argument, ast.Name) and argument.id == name
                 and position < len(names)]
        given += [item.arg for item in value.keywords if item.arg is not None
                  and isinstance(item.value, ast.Name) and item.value.id == name]
        returns = [node.value for node in function.nodes.of(ast.Return)]
        return len(given) == 1 and bool(returns) and all(
            returned is not None and _chains_on(returned, given[0]) for returned in returns)

    def _unpacked_from_call(self, name: str, nodes: ScopeNodes) -> tuple[ast.Call, int] | None:
        """The call and the position, when the only binding of `name` is `a, name = f(...)`."""
        stores = [node for node in nodes.named(name) if isinstance(node.ctx, ast.Store)]
        if len(stores) != 1:
            return None
        target = self.index.parent(stores[0])
        assign = self.index.parent(target) if target is not None else None
        if not (isinstance(target, ast.Tuple) and isinstance(assign, ast.Assign)
                and assign.targets == [target] and isinstance(assign.value, ast.Call)
                and not any(isinstance(e, ast.Starred) for e in target.elts)):
            return None
        return assign.value, target.elts.index(stores[0])


@functools.lru_cache(maxsize=64)  # the few name sets of the rules, asked about every call
def _last_parts(qualnames: frozenset[str]) -> frozenset[str]:
    return frozenset(name.rsplit(".", 1)[-1] for name in qualnames)


def _effects_of_qualname(qualname: str) -> set[str]:
    if qualname in names.TF_FUNCTION:
        return {"tf.function"}
    if qualname in names.CUSTOM_GRADIENT:
        return {"custom_gradient"}
    if qualname in names.RECOMPUTE_GRAD:
        return {"recompute_grad"}
    if qualname in names.DO_NOT_CONVERT:
        return {"do_not_convert"}
    return set()


def _drops_keywords(factory: ast.AST) -> bool:
    """A decorator factory whose wrapper (`def wrapped(self, *args, **kwargs)`) never reads
    its `**kwargs` and passes no `**` on: the keyword arguments given to the decorated
    function go nowhere."""
    wrappers = [(node, node.args.kwarg.arg) for node in ast.walk(factory)
                if node is not factory and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.args.kwarg is not None]
    return bool(wrappers) and not any(
        (isinstance(node, ast.Name) and node.id == keywords)
        or (isinstance(node, ast.keyword) and node.arg is None)
        for wrapper, keywords in wrappers for node in ast.walk(wrapper))


def _chains_on(node: ast.AST, name: str) -> bool:
    """`ds.batch(8).prefetch(1)` chains on `ds`."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr in names.DATASET_CHAIN_METHODS
    ):
        node = node.func.value
    return isinstance(node, ast.Name) and node.id == name


