"""The graph-context model: for every function of a module, whether TensorFlow runs it as a
graph, why, and whether AutoGraph converts it.

Graph contexts, in the order they are found:
- `@tf.function` (any alias, with or without arguments), `f = tf.function(g)`, and decorators
  defined elsewhere that are built on `tf.function` (resolved);
- Keras: `call` of Layer/Model subclasses (also through user or site-packages base classes),
  `train_step`/`test_step`/`predict_step`, `Loss.call`, `Metric.update_state`/`result`, loss
  and metric functions passed to `compile(...)`, functions a `layers.Lambda` wraps (run as its
  `call`);
- functions passed to `tf.data.Dataset.map/filter/flat_map/...` (graph even under
  `run_functions_eagerly`);
- functions called from a graph context, transitively: nested definitions (not those defined
  where the graph never goes: another backend's branch, eager-only code), same-module
  functions and methods, and (through :class:`ProjectServices`, which the project provides) other workspace
  modules.

AutoGraph: Keras 3 calls `Layer.call` and loss functions directly (never converted); tf-keras
converts them. `tf.function(autograph=False)` and `do_not_convert` switch it off.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Protocol, TypeVar, cast

from tf_insight.check import names
from tf_insight.check.guards import eager_nodes, guarded_nodes
from tf_insight.check.imports import ImportMap, callee, keyword
from tf_insight.check.index import MANY_BINDINGS, ClassInfo, FunctionInfo, ModuleIndex, ScopeNodes
from tf_insight.check.keras_flavor import FileKeras, Flavor, ProjectKeras, file_keras
from tf_insight.check.resolve import Definition
from tf_insight.check.shared import Shared
from tf_insight.check.source import SourceFile, first_line, statement_at
from tf_insight.config import Config
from tf_insight.findings import Span

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
# what turns tf.function off for the process when given True
EAGER_SWITCHES = frozenset({"tensorflow.config.run_functions_eagerly",
                            "tensorflow.config.experimental_run_functions_eagerly"})


def is_library(name: str) -> bool:
    """Whether a dotted name comes from one of `LIBRARIES` or the standard library."""
    top = name.split(".", 1)[0]
    return top in LIBRARIES or top in sys.stdlib_module_names


T = TypeVar("T")
NOT_CONVERTED = frozenset({"do_not_convert", "custom_gradient", "recompute_grad"})
_Mark = Callable[["FunctionInfo | None", "GraphContext"], None]


class ContextKind(str, Enum):
    TF_FUNCTION = "tf.function"
    KERAS_CALL = "keras-call"
    KERAS_STEP = "keras-step"
    LOSS = "loss"
    METRIC = "metric"
    DATASET = "dataset-function"
    CALLED = "called-from-graph"


@dataclass(frozen=True)
class GraphContext:
    kind: ContextKind
    reason: str
    autograph: bool
    always_graph: bool = False  # tf.data functions ignore run_functions_eagerly
    origin: Span | None = None  # the decorator, tf.function(...), compile(...) or .map(...)
    # tf.function options that matter to retracing rules
    input_signature: bool = False
    reduce_retracing: bool = False
    # for CALLED contexts: the kind of graph code at the start of the call chain, and the
    # qualname of the graph function that calls this one
    root_kind: ContextKind | None = None
    caller: str | None = None

    @property
    def origin_kind(self) -> ContextKind:
        return self.root_kind or self.kind


@dataclass(frozen=True)
class GraphFact:
    """Why a function runs in graph mode, and where it says so (for editors' hovers)."""

    name: str
    kind: str
    reason: str
    autograph: bool
    always_graph: bool
    targets: tuple[Span, ...]  # the def name and its decorators
    origin: Span | None  # where it became a graph function (`compile(loss=f)`, `ds.map(f)`)


@dataclass(frozen=True)
class CrossModuleCall:
    """A graph function here calls a function defined in another workspace module."""

    module: str  # dotted module name as imported
    function: str
    context: GraphContext


class ProjectServices(Protocol):
    """What a module's graph model (and the rules reading it) ask of the project around it.
    :class:`tf_insight.check.project.Project` provides it; a protocol, so that this model does
    not depend on the project that builds it."""

    config: Config
    root: Path | None  # the project's folder (settings and per-file patterns are relative to it)

    @property
    def keras(self) -> ProjectKeras: ...

    def resolve_reexported_modules(self, context: ModuleContext) -> None: ...

    def eager_at_import(self, path: str) -> str | None: ...

    def keras_of(self, path: str) -> ProjectKeras: ...

    def external_keras_kind(self, context: ModuleContext, base: ast.AST) -> str | None: ...

    def external_class_defines(self, context: ModuleContext, base: ast.AST,
                               method: str) -> bool: ...

    def external_decorator_effects(self, context: ModuleContext, target: ast.AST) -> set[str]: ...

    def external_function(self, context: ModuleContext, node: ast.AST
                          ) -> tuple[ModuleContext, ast.FunctionDef | ast.AsyncFunctionDef] | None: ...

    def external_definition_path(self, context: ModuleContext, node: ast.AST
                                 ) -> Definition | None: ...

    def module_file(self, module: str, importer: str) -> str | None: ...

    def load_module(self, path: str) -> ModuleContext | None: ...


class ModuleContext:
    """Everything rules need about one module; the graph model is computed on first use."""

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
        self.imports = ImportMap.build(self.index.imports, self.tree)
        if "tf." in source.text and "tf" not in self.imports.aliases and not self._binds("tf"):
            # a notebook cell or snippet whose import is out of view: `tf` is TensorFlow
            self.imports.assume("tf", "tensorflow")
        project.resolve_reexported_modules(self)
        self.keras: FileKeras = keras or file_keras(
            source.text, self.imports, project.config.keras,
            project.keras_of(source.path) if project.config.keras == "auto" else None)
        self.flavor: Flavor = self.keras.flavor
        self.seeds = seeds or {}
        self.outgoing: list[CrossModuleCall] = []
        self._qualnames: dict[ast.AST, str | None] = {}
        self._focus: frozenset[int] | None = None
        self._words: dict[str, bool] = {}
        self._focused_parts: list[ModuleIndex] | None = None
        # graph functions' calls of other functions: (those of this module, those of others)
        self._calls_out: dict[FunctionInfo, tuple[list[FunctionInfo], list[tuple[str, str]]]] = {}
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

    @property
    def relevant(self) -> bool:
        """False for modules that neither use TF/Keras nor are called from graph code."""
        return self.imports.uses_tensorflow_or_keras or bool(self.seeds)

    @cached_property
    def runs_eagerly(self) -> str | None:
        """Why this module's tf.functions and Keras steps run eagerly: a module of its package
        turns tf.function off as it is imported (`Project.eager_at_import`); tf.data
        functions are still traced."""
        return self.project.eager_at_import(self.path)

    @cached_property
    def tf1_graph_code(self) -> str | None:
        """Why this module is TensorFlow 1.x graph code, or None: it calls a TF 1.x
        graph-building API that TF 2 no longer has (`tf.contrib...`, `tf.get_variable`,
        `tf.layers.dense`, `tf.placeholder`...), so its layers are called once to build a graph
        that a session runs; TF 2's tracing (a trace per input signature, Python once per
        trace) is not how it runs."""
        if not self.mentions("contrib", "layers.", "placeholder", "Session", "get_variable",
                             "variable_scope", "Optimizer", "disable_", "get_default_graph",
                             "py_func"):
            return None
        for call, _scope in self.index.calls:
            qualname = self.qualname(call.func) or ""
            parts = qualname.split(".")
            if qualname.startswith(TF1_GRAPH_PREFIXES) or (
                    parts[0] == "tensorflow" and parts[-1] in TF1_GRAPH_APIS
                    and (len(parts) == 2 or parts[:2] == ["tensorflow", "train"])):
                return (f"it uses the TensorFlow 1.x graph API `{self.source.segment(call.func)}` "
                        f"(line {call.lineno}): its graph is built once and run in a session")
        return None

    @cached_property
    def eager_classes(self) -> list[tuple[ClassInfo, int]]:
        """Classes whose `__init__` calls `tf.config.run_functions_eagerly(True)`, with the
        line: no instance exists before tf.function is off, so their methods run eagerly."""
        if not self.mentions("run_functions_eagerly"):
            return []
        found = []
        for cls in self.index.classes:
            init = cls.methods.get("__init__")
            for call in init.calls if init is not None else ():
                if call.args and isinstance(call.args[0], ast.Constant) \
                        and call.args[0].value is True and self.refers_to(call.func, EAGER_SWITCHES):
                    found.append((cls, call.lineno))
                    break
        return found

    def always_graph_at(self, line: int) -> bool:
        """Whether the innermost graph function around `line` is traced whatever the mode
        (a tf.data function)."""
        around = [(function, context) for function, context in self.contexts.items()
                  if function.node.lineno <= line <= (function.node.end_lineno or 0)]
        return bool(around) and max(
            around, key=lambda pair: pair[0].node.lineno)[1].always_graph

    def qualname(self, node: ast.AST) -> str | None:
        # Rules ask about the same nodes many times; the answer never changes.
        try:
            return self._qualnames[node]
        except KeyError:
            found = self._qualnames[node] = self.imports.qualname(node)
            return found

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

    def focused_functions(self) -> list[FunctionInfo]:
        if self._focused_parts is None:
            return self.index.functions
        return [function for part in self._focused_parts for function in part.functions]

    def focused_graph_functions(self) -> Iterator[tuple[FunctionInfo, GraphContext]]:
        if self._focused_parts is None:
            yield from self.contexts.items()
            return
        contexts = self.contexts
        for function in self.focused_functions():
            context = contexts.get(function)
            if context is not None:
                yield function, context

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
        """Effects of the TF wrappers a function's body applies (a decorator factory)."""
        effects: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Name | ast.Attribute):
                qualname = self.qualname(node)
                if qualname is not None:
                    effects |= _effects_of_qualname(qualname)
        return effects

    # ---- the graph model -----------------------------------------------------------------

    def reuse_model(self, previous: ModuleContext, parts: Iterable[ModuleIndex]) -> None:
        """Take over what the last version of this file (`previous`) worked out of the
        statements whose index `parts` it shares with it (the same nodes and functions) and
        that reference no statement the edit changed: the effects of their decorators, the
        Keras kinds of their classes, the calls their graph functions make of others. The
        model is then built from those (incremental analysis: a keystroke's model costs a
        fraction of a whole one). Before `build_graph_model`."""
        for part in parts:
            decorators = [*(d for function in part.functions for d in function.decorators),
                          *(d for cls in part.classes for d in cls.node.decorator_list)]
            self._effects.update((decorator, previous._effects[decorator])
                                 for decorator in decorators if decorator in previous._effects)
            self._calls_out.update((function, previous._calls_out[function])
                                   for function in part.functions
                                   if function in previous._calls_out)
            self._reused_kinds.update((cls, previous._keras_kinds[cls]) for cls in part.classes
                                      if cls in previous._keras_kinds)

    def build_graph_model(self) -> str | None:
        """Compute the graph contexts now; on an internal error the module is analysed as if
        nothing ran in graph mode, and the error is returned for the log."""
        try:
            self.contexts  # noqa: B018 - cached_property: computing it is the point
        except (RecursionError, Exception) as error:
            self.__dict__["contexts"] = {}
            return f"graph model failed on {self.path}: {type(error).__name__}: {error}"
        return None

    def graph_context(self, function: FunctionInfo) -> GraphContext | None:
        return self.contexts.get(function)

    def graph_functions(self) -> Iterator[tuple[FunctionInfo, GraphContext]]:
        yield from self.contexts.items()

    def graph_facts(self) -> list[GraphFact]:
        """Each graph function's context as plain data: what editors show on hover."""
        return [self.graph_fact(function, context) for function, context in self.contexts.items()]

    def graph_fact(self, function: FunctionInfo, context: GraphContext) -> GraphFact:
        node, targets = function.node, []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name_span = self.source.def_name_span(node)
            targets = [*([name_span] if name_span else []),
                       *(self.span(decorator) for decorator in node.decorator_list)]
        return GraphFact(
            name=str(function.qualname or function.name), kind=context.kind.value,
            reason=context.reason, autograph=context.autograph,
            always_graph=context.always_graph, targets=tuple(targets), origin=context.origin)

    def enclosing_class(self, function: FunctionInfo) -> ClassInfo | None:
        while function.cls is None and function.outer is not None:
            function = function.outer
        return function.cls

    @cached_property
    def no_autograph(self) -> set[FunctionInfo]:
        """Functions AutoGraph leaves as they are wherever they are traced: `do_not_convert`,
        and what `custom_gradient`/`recompute_grad` wrap (TensorFlow's wrapper calls them, and
        AutoGraph does not convert what TensorFlow's own code calls; TF 2.21: a `for` over
        `tf.range` in one fails under `tf.function` and in `Dataset.map`)."""
        return {
            info
            for info in self.index.functions
            if any(self.decorator_effects(d) & NOT_CONVERTED for d in info.decorators)
        }

    @cached_property
    def contexts(self) -> dict[FunctionInfo, GraphContext]:
        found: dict[FunctionInfo, GraphContext] = {}
        if not self.relevant:
            return found

        eager = self.py_function_callbacks

        def mark(function: FunctionInfo | None, context: GraphContext) -> None:
            if function is None or function in found or function in eager:
                return
            if function in self.no_autograph:
                context = replace(context, autograph=False)
            found[function] = context

        for function in self.index.functions:
            for decorator in function.decorators:
                if "tf.function" in self.decorator_effects(decorator):
                    mark(function, self._tf_function_context(decorator, "decorated with"))
        for function in self.index.functions if self.seeds else ():
            seed = self.seeds.get(function.qualname)  # a decorator says more than a caller
            if seed is not None:
                mark(function, seed)
        self._mark_keras_methods(mark)
        self._mark_wrapped_and_passed(mark)
        self._close_over_calls(found)
        return found

    @cached_property
    def py_function_callbacks(self) -> set[FunctionInfo]:
        """Functions given to `tf.py_function`/`tf.numpy_function` and those nested in them:
        TensorFlow runs them as Python at every step, so they are not graph code."""
        found: set[FunctionInfo] = set()
        for call, scope in self.calls_named(*_PY_FUNCTION_NAMES):
            if self.refers_to(call.func, names.PY_FUNCTIONS):
                target = call.args[0] if call.args else next(
                    (k.value for k in call.keywords if k.arg in ("func", "f")), None)
                named = self.function_named(target, scope) if target is not None else None
                if named is not None:
                    found.add(named)
        for function in self.index.functions:  # outer functions come first in the index
            if function.outer in found:
                found.add(function)
        return found

    def tf_function_options(self, node: ast.AST) -> tuple[bool, bool, bool]:
        """(input_signature, reduce_retracing, autograph) of a `@tf.function(...)` decorator
        or a `tf.function(f, ...)` / `tf.function(**options)(f)` call (keyword or positional)."""
        if not isinstance(node, ast.Call):
            return False, False, True  # bare `@tf.function`
        call = node.func if isinstance(node.func, ast.Call) else node
        signature = keyword(call, "input_signature")
        reduce = keyword(call, "reduce_retracing") or keyword(call, "experimental_relax_shapes")
        autograph = keyword(call, "autograph")
        if call is node and node.args and self.is_tf_function(node.func):
            # tf.function(func, input_signature, autograph, ...): positional options
            signature = signature if signature is not None else _argument(call, 1)
            autograph = autograph if autograph is not None else _argument(call, 2)
        has_signature = signature is not None and not (
            isinstance(signature, ast.Constant) and signature.value is None)
        relaxed = isinstance(reduce, ast.Constant) and reduce.value is True
        converted = not (isinstance(autograph, ast.Constant) and autograph.value is False)
        return has_signature, relaxed, converted

    def _tf_function_context(self, node: ast.AST, how: str) -> GraphContext:
        input_signature, reduce_retracing, autograph = self.tf_function_options(node)
        text = self.source.segment(callee(node)) or "tf.function"
        return GraphContext(
            ContextKind.TF_FUNCTION,
            f"{how} `{text}`: traced into a graph on first call"
            + ("" if autograph else " (autograph=False: Python control flow is not converted)"),
            autograph,
            origin=self.span(node),
            input_signature=input_signature,
            reduce_retracing=reduce_retracing,
        )

    def _mark_keras_methods(self, mark: _Mark) -> None:
        keras = "tf-keras" if self.flavor == "2" else "Keras 3"
        converted = self.flavor == "2"
        ag_note = (
            "AutoGraph converts it" if converted else "Keras 3 does not AutoGraph-convert it"
        )
        for cls in self.index.classes:
            kind = self.keras_kind(cls)
            if kind is None:
                continue
            if self._compiled_eagerly(cls):
                continue  # `compile(run_eagerly=True)`: Keras runs its methods eagerly
            replaced = _replaced_per_instance(cls)
            methods = {name: method for name, method in cls.methods.items()
                       if name not in replaced}
            if kind in ("layer", "model") and "call" in methods:
                mark(methods["call"], GraphContext(
                    ContextKind.KERAS_CALL,
                    f"`{cls.name}.call` of a {keras} {kind}: traced in graph mode by fit/"
                    f"evaluate/predict and by functional model construction ({ag_note})",
                    converted, origin=self.span(methods["call"].node)))
            if kind == "model":
                # Keras calls steps from its own tf.function, whose module AutoGraph never
                # converts (`DoNotConvert('keras')`): the step is traced as plain Python.
                for step in ("train_step", "test_step", "predict_step"):
                    if step in methods:
                        mark(methods[step], GraphContext(
                            ContextKind.KERAS_STEP,
                            f"`{cls.name}.{step}`: {keras} runs it inside a tf.function "
                            "during fit/evaluate/predict (unless run_eagerly=True); AutoGraph "
                            "does not convert it",
                            False, origin=self.span(methods[step].node)))
            if kind == "loss" and "call" in methods:
                mark(methods["call"], GraphContext(
                    ContextKind.LOSS,
                    f"`{cls.name}.call` of a {keras} Loss: runs inside the traced train step",
                    converted, origin=self.span(methods["call"].node)))
            if kind == "metric":
                for method in ("update_state", "result"):
                    if method in methods:
                        mark(methods[method], GraphContext(
                            ContextKind.METRIC,
                            f"`{cls.name}.{method}` of a {keras} Metric: runs inside the "
                            "traced train/test step",
                            converted, origin=self.span(methods[method].node)))

    def _compiled_eagerly(self, cls: ClassInfo) -> bool:
        """Every `compile(...)` that can concern a model class says `run_eagerly=True`: those
        in the function that defines the class (a class made in a test), or in the whole
        module for a module-level class."""
        some, all_eager = self._eager_compiles.get(cls.outer, (False, True))
        return some and all_eager

    @cached_property
    def _eager_compiles(self) -> dict[FunctionInfo | None, tuple[bool, bool]]:
        """Per scope (None: the whole module): (some `x.compile(...)` there, all of them say
        `run_eagerly=True`); made once, as every Keras class asks."""
        table: dict[FunctionInfo | None, tuple[bool, bool]] = {}
        for call, scope in self.calls_named("compile"):
            if not isinstance(call.func, ast.Attribute):
                continue
            eager = any(k.arg == "run_eagerly" and isinstance(k.value, ast.Constant)
                        and k.value.value is True for k in call.keywords)
            for key in (scope, None):
                table[key] = (True, table.get(key, (True, True))[1] and eager)
        return table

    def _mark_wrapped_and_passed(self, mark: _Mark) -> None:
        """`tf.function(g)`, `compile(loss=f)`, `ds.map(f)`, `layers.Lambda(f)`: find the
        function by name."""
        for node, scope in self.calls_named("function", "compile", "Lambda",
                                            *names.DATASET_FUNCTION_METHODS):
            func = node.func
            method = func.attr if isinstance(func, ast.Attribute) else None
            if (self.qualname(func) or "").endswith("layers.Lambda"):
                wrapped = node.args[0] if node.args else keyword(node, "function")
                if wrapped is not None:
                    mark(self.function_named(wrapped, scope), GraphContext(
                        ContextKind.KERAS_CALL, "wrapped by `Lambda`: Keras runs it as the "
                        "layer's `call`, traced by fit/predict and by functional model "
                        "construction", self.flavor == "2", origin=self.span(node)))
            elif method is None or method == "function":  # how every tf.function is spelled
                if node.args and self.is_tf_function(func):
                    mark(self.function_named(node.args[0], scope),
                         self._tf_function_context(node, "wrapped by"))
            elif method == "compile":
                self._mark_compile_functions(node, scope, mark)
            elif isinstance(func, ast.Attribute) and method in names.DATASET_FUNCTION_METHODS \
                    and self.is_dataset(func.value, scope):
                position, keywords = names.DATASET_FUNCTION_METHODS[method]
                candidates = [node.args[position]] if len(node.args) > position else []
                candidates += [k.value for k in node.keywords if k.arg in keywords]
                for candidate in candidates:
                    mark(self.function_named(candidate, scope), GraphContext(
                        ContextKind.DATASET,
                        f"passed to `Dataset.{method}`: tf.data always traces it into "
                        "a graph, even under tf.config.run_functions_eagerly(True)",
                        True, always_graph=True, origin=self.span(node)))

    def _mark_compile_functions(
        self, call: ast.Call, scope: FunctionInfo | None, mark: _Mark
    ) -> None:
        for argument, value in compiled_functions(call):
            kind = ContextKind.LOSS if argument == "loss" else ContextKind.METRIC
            context = GraphContext(
                kind, f"passed to `compile({argument}=...)`: Keras calls it inside the "
                "traced train step", self.flavor == "2", origin=self.span(call))
            function = self.function_named(value, scope) or self.made_function(value, scope)
            if function is not None and len(function.parameters) >= 2:
                mark(function, context)
            elif function is None and (imported := self._other_module_function(value)):
                # a loss of another module of the project: its module learns it (seeds)
                self.outgoing.append(CrossModuleCall(*imported, context))

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
                return self._method(cls, node.attr)
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

    def _method(self, cls: ClassInfo, name: str) -> FunctionInfo | None:
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
        friends), dataset methods on one, or a name that every assignment binds to one."""
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
                return None
            if isinstance(node, ast.Name):
                return self._dataset_name_root(node.id, scope, depth + 1)
            return None
        return None

    def _dataset_name_root(
        self, name: str, scope: FunctionInfo | None, depth: int
    ) -> ast.Call | None:
        """A name is a dataset when every assignment to it in its scope is one (`ds =
        ds.batch(8)` counts), and nothing else (a loop, a `with`, a tuple target) binds it."""
        if scope is not None and name not in scope.local_names:
            scope = None  # a module-level dataset used inside a function
        nodes = scope.nodes if scope is not None else self.index.module_nodes
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
            if _chains_on(value, name):
                continue
            found = self.dataset_root(value, scope, depth)
            if found is None:
                return None
            root = root or found
        return root

    def _close_over_calls(self, found: dict[FunctionInfo, GraphContext]) -> None:
        """Functions called from (or defined inside) graph functions run in graph mode too;
        not one defined where the graph never goes (an `if backend() == "theano":` branch, an
        eager-only branch)."""
        work = list(found)
        nested: dict[FunctionInfo, list[FunctionInfo]] = {}
        for info in self.index.functions:
            if info.outer is not None:
                nested.setdefault(info.outer, []).append(info)
        while work:
            caller = work.pop()
            called, elsewhere = self._calls_of_others(caller)
            inside = nested.get(caller, [])
            if inside:
                unseen = guarded_nodes(self, caller)
                inside = [info for info in inside if info.node not in unseen]
            targets = [*inside, *called]
            inherited: GraphContext | None = None  # made for the callers that pass it on
            if elsewhere:
                inherited = self._called_from(caller, found[caller])
                self.outgoing += [CrossModuleCall(module, name, inherited)
                                  for module, name in elsewhere]
            for target in targets:
                if target not in found and target not in self.py_function_callbacks:
                    if inherited is None:
                        inherited = self._called_from(caller, found[caller])
                    found[target] = (
                        replace(inherited, autograph=False)
                        if target in self.no_autograph
                        else inherited
                    )
                    work.append(target)

    def _calls_of_others(self, caller: FunctionInfo
                         ) -> tuple[list[FunctionInfo], list[tuple[str, str]]]:
        """The functions of this module a graph function calls, and (module, function) of
        those it calls in other modules, in call order: not the calls made where only eager
        code runs (found once per function, or taken over from the last version)."""
        found = self._calls_out.get(caller)
        if found is None:
            targets: list[FunctionInfo] = []
            elsewhere: list[tuple[str, str]] = []
            eager = eager_nodes(self, caller)  # calls made there run eagerly: not followed
            for call in caller.calls:
                if call in eager:
                    continue
                target = (self.function_named(call.func, caller) or self._constructor(call.func)
                          or self._passed_object_method(call.func, caller))
                if target is not None and target.name == "build" and target.cls is not None \
                        and self.keras_kind(target.cls) is not None:
                    continue  # set-up: Keras builds a layer once (`if not self.built:` too)
                if target is not None:
                    targets.append(target)
                elif (imported := self._other_module_function(call.func)) is not None:
                    elsewhere.append(imported)
            found = self._calls_out[caller] = (targets, elsewhere)
        return found

    def _constructor(self, func: ast.AST) -> FunctionInfo | None:
        """The `__init__` that `Clip(...)` runs, for a plain class of this module (a Keras
        layer's is the right place for what runs once)."""
        cls = self.index.module_classes().get(func.id) if isinstance(func, ast.Name) else None
        if cls is None or self.keras_kind(cls) is not None:
            return None
        return cls.methods.get("__init__")

    def _passed_object_method(self, func: ast.AST, caller: FunctionInfo) -> FunctionInfo | None:
        """`decoder(x)` or `decoder.decode(x)` in a function whose parameter `decoder` is,
        at every call of it in this module, an instance of one plain class of the module
        (`decode_batch(ParityDecoder(...), x)`, or a name bound to one): that method."""
        if isinstance(func, ast.Name):
            name, method = func.id, "__call__"
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name, method = func.value.id, func.attr
        else:
            return None
        if caller.cls is not None or name not in caller.parameter_names:
            return None
        position = caller.parameter_names.index(name)
        classes: set[str] = set()
        for call, scope in self.index.calls_named({caller.name}):
            if self.function_named(call.func, scope) is not caller:
                continue
            argument = call.args[position] if position < len(call.args) else keyword(call, name)
            cls = self._instance_class(argument, scope)
            if cls is None:
                return None
            classes.add(cls.name)
        if len(classes) != 1:
            return None
        return self._method(self.index.module_classes()[classes.pop()], method)

    def _instance_class(self, node: ast.AST | None, scope: FunctionInfo | None) -> ClassInfo | None:
        """The plain class of this module that `node` makes an instance of: `Clip(...)`, or a
        name bound once (in its scope, else at module level) to such a call."""
        if isinstance(node, ast.Name):
            assigned = (scope.nodes if scope is not None else self.index.module_nodes
                        ).assignments_to(node.id)
            if not assigned and scope is not None:
                assigned = self.index.module_nodes.assignments_to(node.id)
            node = assigned[0].value if len(assigned) == 1 else None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        cls = self.index.module_classes().get(node.func.id)
        return cls if cls is not None and self.keras_kind(cls) is None else None

    def _called_from(self, caller: FunctionInfo, context: GraphContext) -> GraphContext:
        """The context of the functions a graph function calls."""
        return GraphContext(
            ContextKind.CALLED,
            f"called from `{caller.qualname}`, which runs in graph mode ({context.kind.value})",
            context.autograph,
            always_graph=context.always_graph,
            origin=self.span(caller.node),
            root_kind=context.origin_kind,
            caller=caller.qualname,
        )

    def _other_module_function(self, func: ast.AST) -> tuple[str, str] | None:
        """(module, function) for a callee imported from another module: the project-wide
        pass looks for it among the workspace's modules."""
        if isinstance(func, ast.Name) and self.is_imported(func):
            if func.id in self.imports.relative:
                level, dotted = self.imports.relative[func.id]
                module, _, name = dotted.rpartition(".")
                return "." * level + module, name
            module, _, name = self.imports.aliases[func.id].rpartition(".")
            return (module, name) if module else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            imported = self.imports.aliases.get(func.value.id)
            if imported is not None and self.is_imported(func.value):
                return imported, func.attr
        return None

    def in_graph(self, function: FunctionInfo | None) -> GraphContext | None:
        return None if function is None else self.contexts.get(function)


_PY_FUNCTION_NAMES = tuple({name.rsplit(".", 1)[-1] for name in names.PY_FUNCTIONS})


def compiled_functions(call: ast.Call) -> Iterator[tuple[str, ast.expr]]:
    """(keyword, value) for each loss and metric a `compile(...)` call is given: every item of
    a list or tuple, every value of a dict."""
    for item in call.keywords:
        if item.arg not in ("loss", "metrics", "weighted_metrics"):
            continue
        value = item.value
        values = (value.elts if isinstance(value, ast.List | ast.Tuple)
                  else [v for v in value.values if v is not None]
                  if isinstance(value, ast.Dict) else [value])
        for one in values:
            yield item.arg, one


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


def _chains_on(node: ast.AST, name: str) -> bool:
    """`ds.batch(8).prefetch(1)` chains on `ds`."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
        node.func.attr in names.DATASET_CHAIN_METHODS
    ):
        node = node.func.value
    return isinstance(node, ast.Name) and node.id == name


def _argument(call: ast.Call, position: int) -> ast.expr | None:
    return call.args[position] if len(call.args) > position else None


def _replaced_per_instance(cls: ClassInfo) -> set[str]:
    """Methods the class replaces on each instance (`obj.update_state = wrapper` in `__new__`,
    `self.call = ...` in `__init__`): Keras runs the replacement, not the method."""
    replaced: set[str] = set()
    for method in cls.methods.values():
        for node in method.nodes.of(ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and (
                        target.attr in cls.methods):
                    replaced.add(target.attr)
    return replaced
