"""The graph model of a module: for every function, whether TensorFlow runs it as a graph,
why, and whether AutoGraph converts it.

Graph contexts, in the order they are found:
- `@tf.function` (any alias, with or without arguments), `f = tf.function(g)`, and decorators
  defined elsewhere that are built on `tf.function` (resolved);
- Keras: `call` of Layer/Model subclasses (also through user or site-packages base classes;
  not a `call(self)` that takes no input, or only annotated Python scalars: a plain object
  that borrows `Layer`'s name and runs eagerly), `train_step`/`test_step`/`predict_step`
  (not one that needs more than Keras's one batch: `train_step(self, x, params)` is the
  class's own method, which its own loop calls),
  `Loss.call`, `Metric.update_state`/`result`, loss and metric functions passed to
  `compile(...)` (also a method of a plain object bound to a name, `loss=net.hinge`),
  functions a `layers.Lambda` wraps (run as its `call`);
- functions passed to `tf.data.Dataset.map/filter/flat_map/...` (graph even under
  `run_functions_eagerly`);
- functions called from a graph context, transitively: nested definitions (not those defined
  where the graph never goes: another backend's branch, eager-only code), same-module
  functions and methods, and (through the project's seeds) other workspace modules.

AutoGraph: Keras 3 calls `Layer.call` and loss functions directly (never converted); tf-keras
converts them. `tf.function(autograph=False)` and `do_not_convert` switch it off.

It reads the module's semantic model (`tf_insight.check.context.ModuleContext`: names, imports,
Keras classes, decorators) and nothing else; rules reach it as `module.graph`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from typing import Protocol

from tf_insight.check import names
from tf_insight.check.guards import GuardedModule, eager_nodes, guarded_nodes
from tf_insight.check.imports import ImportMap, callee, keyword
from tf_insight.check.index import ClassInfo, FunctionInfo, ModuleIndex
from tf_insight.check.keras_flavor import Flavor
from tf_insight.findings import Span

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
    # a `Lambda` layer's function: Keras gives it the inputs as its first parameter, the rest
    # from `arguments=` as they are (Python values) or their defaults
    one_input: bool = False
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


class SemanticModel(GuardedModule, Protocol):
    """What the graph model reads of its module: a `tf_insight.check.context.ModuleContext`,
    which builds the model (a protocol, so that the two do not import each other)."""

    index: ModuleIndex
    imports: ImportMap
    flavor: Flavor
    seeds: dict[str, GraphContext]  # contexts other modules' graph code gives functions here

    @property
    def path(self) -> str: ...

    @property
    def relevant(self) -> bool: ...

    @property
    def everything_in_focus(self) -> bool: ...

    def focused_functions(self) -> list[FunctionInfo]: ...

    def span(self, node: ast.AST) -> Span: ...

    def calls_named(self, *names: str) -> list[tuple[ast.Call, FunctionInfo | None]]: ...

    def refers_to(self, node: ast.AST, qualnames: frozenset[str]) -> bool: ...

    def is_tf_function(self, node: ast.AST) -> bool: ...

    def is_imported(self, node: ast.AST) -> bool: ...

    def keras_kind(self, cls: ClassInfo) -> str | None: ...

    def decorator_effects(self, decorator: ast.AST) -> set[str]: ...

    def made_function(self, node: ast.AST, scope: FunctionInfo | None) -> FunctionInfo | None: ...

    def method_of(self, cls: ClassInfo, name: str) -> FunctionInfo | None: ...

    def is_dataset(self, node: ast.AST, scope: FunctionInfo | None) -> bool: ...


class GraphModel:
    """Which functions of one module run in graph mode, and why; computed on first use."""

    def __init__(self, module: SemanticModel) -> None:
        self.module = module
        self.outgoing: list[CrossModuleCall] = []  # what this module's graph code calls elsewhere
        # graph functions' calls of other functions: (those of this module, those of others)
        self._calls_out: dict[FunctionInfo, tuple[list[FunctionInfo], list[tuple[str, str]]]] = {}
        self._held: dict[tuple[ClassInfo, str], ClassInfo | None] = {}  # see _attribute_class

    def build(self) -> str | None:
        """Compute the graph contexts now; on an internal error the module is analysed as if
        nothing ran in graph mode, and the error is returned for the log."""
        try:
            self.contexts  # noqa: B018 - cached_property: computing it is the point
        except (RecursionError, Exception) as error:
            self.__dict__["contexts"] = {}
            return f"graph model failed on {self.module.path}: {type(error).__name__}: {error}"
        return None

    def in_graph(self, function: FunctionInfo | None) -> GraphContext | None:
        return None if function is None else self.contexts.get(function)

    def functions(self) -> Iterator[tuple[FunctionInfo, GraphContext]]:
        yield from self.contexts.items()

    def focused_functions(self) -> Iterator[tuple[FunctionInfo, GraphContext]]:
        """The graph functions among the module's focused functions (all when unfocused)."""
        if self.module.everything_in_focus:
            yield from self.contexts.items()
            return
        contexts = self.contexts
        for function in self.module.focused_functions():
            context = contexts.get(function)
            if context is not None:
                yield function, context

    def innermost_at(self, line: int) -> tuple[FunctionInfo, GraphContext] | None:
        """The innermost graph function around `line`, and its context."""
        around = [(function, context) for function, context in self.contexts.items()
                  if function.node.lineno <= line <= (function.node.end_lineno or 0)]
        return max(around, key=lambda pair: pair[0].node.lineno) if around else None

    def always_graph_at(self, line: int) -> bool:
        """Whether the innermost graph function around `line` is traced whatever the mode
        (a tf.data function)."""
        innermost = self.innermost_at(line)
        return innermost is not None and innermost[1].always_graph

    def facts(self) -> list[GraphFact]:
        """Each graph function's context as plain data: what editors show on hover."""
        return [self.fact(function, context) for function, context in self.contexts.items()]

    def fact(self, function: FunctionInfo, context: GraphContext) -> GraphFact:
        node, targets = function.node, []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name_span = self.module.source.def_name_span(node)
            targets = [*([name_span] if name_span else []),
                       *(self.module.span(decorator) for decorator in node.decorator_list)]
        return GraphFact(
            name=str(function.qualname or function.name), kind=context.kind.value,
            reason=context.reason, autograph=context.autograph,
            always_graph=context.always_graph, targets=tuple(targets), origin=context.origin)

    def reuse(self, previous: GraphModel, parts: Iterable[ModuleIndex]) -> None:
        """Take over the calls the graph functions of these index `parts` make of others, as
        the last version of the file (`previous`) found them (see `ModuleContext.reuse_model`),
        unless one of the functions called is gone: its statement was parsed again (a plain
        object's method that a parameter holds, `checker(bits)`, is found through code outside
        the caller, so the caller's own references do not show it)."""
        current = set(self.module.index.functions)
        for part in parts:
            for function in part.functions:
                calls = previous._calls_out.get(function)
                if calls is not None and all(target in current for target in calls[0]):
                    self._calls_out[function] = calls

    @cached_property
    def no_autograph(self) -> set[FunctionInfo]:
        """Functions AutoGraph leaves as they are wherever they are traced: `do_not_convert`,
        and what `custom_gradient`/`recompute_grad` wrap (TensorFlow's wrapper calls them, and
        AutoGraph does not convert what TensorFlow's own code calls; TF 2.21: a `for` over
        `tf.range` in one fails under `tf.function` and in `Dataset.map`)."""
        return {
            info
            for info in self.module.index.functions
            if any(self.module.decorator_effects(d) & NOT_CONVERTED for d in info.decorators)
        }

    @cached_property
    def contexts(self) -> dict[FunctionInfo, GraphContext]:
        found: dict[FunctionInfo, GraphContext] = {}
        if not self.module.relevant:
            return found

        eager = self.py_function_callbacks

        def mark(function: FunctionInfo | None, context: GraphContext) -> None:
            if function is None or function in eager:
                return
            if function in found:
                # wrapped again, without AutoGraph (`tf.function(f, autograph=False)` beside
                # `tf.function(f)`): that trace is where Python control flow on tensors fails
                known = found[function]
                if known.kind is context.kind and known.autograph and not context.autograph:
                    found[function] = context
                return
            if function in self.no_autograph:
                context = replace(context, autograph=False)
            found[function] = context

        for function in self.module.index.functions:
            for decorator in function.decorators:
                if "tf.function" in self.module.decorator_effects(decorator):
                    mark(function, self._tf_function_context(decorator, "decorated with"))
        for function in self.module.index.functions if self.module.seeds else ():
            seed = self.module.seeds.get(function.qualname)  # a decorator says more than a caller
            if seed is not None:
                mark(function, seed)
        self._mark_keras_methods(mark)
        self._mark_wrapped_and_passed(mark)
        self._close_over_calls(found)
        return found

    @cached_property
    def py_function_callbacks(self) -> set[FunctionInfo]:
        """Functions given to `tf.py_function`/`tf.numpy_function` (or decorated with one:
        `@tf.py_function(Tout=tf.float32)`) and those nested in them: TensorFlow runs them as
        Python at every step, so they are not graph code."""
        found: set[FunctionInfo] = set()
        for call, scope in self.module.calls_named(*_PY_FUNCTION_NAMES):
            if self.module.refers_to(call.func, names.PY_FUNCTIONS):
                target = call.args[0] if call.args else next(
                    (k.value for k in call.keywords if k.arg in ("func", "f")), None)
                named = self.module.function_named(target, scope) if target is not None else None
                if named is not None:
                    found.add(named)
        for function in self.module.index.functions:  # outer functions come first in the index
            decorators = getattr(function.node, "decorator_list", [])
            if function.outer in found or any(self.module.refers_to(
                    callee(decorator), names.PY_FUNCTIONS) for decorator in decorators):
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
        if call is node and node.args and self.module.is_tf_function(node.func):
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
        text = self.module.source.segment(callee(node)) or "tf.function"
        return GraphContext(
            ContextKind.TF_FUNCTION,
            f"{how} `{text}`: traced into a graph on first call"
            + ("" if autograph else " (autograph=False: Python control flow is not converted)"),
            autograph,
            origin=self.module.span(node),
            input_signature=input_signature,
            reduce_retracing=reduce_retracing,
        )

    def _mark_keras_methods(self, mark: _Mark) -> None:
        keras = "tf-keras" if self.module.flavor == "2" else "Keras 3"
        converted = self.module.flavor == "2"
        ag_note = (
            "AutoGraph converts it" if converted else "Keras 3 does not AutoGraph-convert it"
        )
        for cls in self.module.index.classes:
            kind = self.module.keras_kind(cls)
            if kind is None:
                continue
            if self._compiled_eagerly(cls):
                continue  # `compile(run_eagerly=True)`: Keras runs its methods eagerly
            replaced = _replaced_per_instance(cls)
            methods = {name: method for name, method in cls.methods.items()
                       if name not in replaced}
            if kind in ("layer", "model") and "call" in methods and _takes_inputs(
                    methods["call"]):
                mark(methods["call"], GraphContext(
                    ContextKind.KERAS_CALL,
                    f"`{cls.name}.call` of a {keras} {kind}: traced in graph mode by fit/"
                    f"evaluate/predict and by functional model construction ({ag_note})",
                    converted, origin=self.module.span(methods["call"].node)))
            if kind == "model":
                # Keras calls steps from its own tf.function, whose module AutoGraph never
                # converts (`DoNotConvert('keras')`): the step is traced as plain Python.
                for step in ("train_step", "test_step", "predict_step"):
                    if step in methods and _takes_one_batch(methods[step]):
                        mark(methods[step], GraphContext(
                            ContextKind.KERAS_STEP,
                            f"`{cls.name}.{step}`: {keras} runs it inside a tf.function "
                            "during fit/evaluate/predict (unless run_eagerly=True); AutoGraph "
                            "does not convert it",
                            False, origin=self.module.span(methods[step].node)))
            if kind == "loss" and "call" in methods:
                mark(methods["call"], GraphContext(
                    ContextKind.LOSS,
                    f"`{cls.name}.call` of a {keras} Loss: runs inside the traced train step",
                    converted, origin=self.module.span(methods["call"].node)))
            if kind == "metric":
                for method in ("update_state", "result"):
                    if method in methods:
                        mark(methods[method], GraphContext(
                            ContextKind.METRIC,
                            f"`{cls.name}.{method}` of a {keras} Metric: runs inside the "
                            "traced train/test step",
                            converted, origin=self.module.span(methods[method].node)))

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
        for call, scope in self.module.calls_named("compile"):
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
        for node, scope in self.module.calls_named("function", "compile", "Lambda",
                                            *names.DATASET_FUNCTION_METHODS):
            func = node.func
            method = func.attr if isinstance(func, ast.Attribute) else None
            if (self.module.qualname(func) or "").endswith("layers.Lambda"):
                wrapped = node.args[0] if node.args else keyword(node, "function")
                if wrapped is not None:
                    mark(self.module.function_named(wrapped, scope), GraphContext(
                        ContextKind.KERAS_CALL, "wrapped by `Lambda`: Keras runs it as the "
                        "layer's `call`, traced by fit/predict and by functional model "
                        "construction", self.module.flavor == "2", origin=self.module.span(node),
                        one_input=True))
            elif method is None or method == "function":  # how every tf.function is spelled
                if node.args and self.module.is_tf_function(func):
                    mark(self.module.function_named(node.args[0], scope)
                         or self._bound_method(node.args[0], scope),
                         self._tf_function_context(node, "wrapped by"))
            elif method == "compile":
                self._mark_compile_functions(node, scope, mark)
            elif isinstance(func, ast.Attribute) and method in names.DATASET_FUNCTION_METHODS \
                    and self.module.is_dataset(func.value, scope):
                position, keywords = names.DATASET_FUNCTION_METHODS[method]
                candidates = [node.args[position]] if len(node.args) > position else []
                candidates += [k.value for k in node.keywords if k.arg in keywords]
                for candidate in candidates:
                    mark(self.module.function_named(candidate, scope), GraphContext(
                        ContextKind.DATASET,
                        f"passed to `Dataset.{method}`: tf.data always traces it into "
                        "a graph, even under tf.config.run_functions_eagerly(True)",
                        True, always_graph=True, origin=self.module.span(node)))

    def _mark_compile_functions(
        self, call: ast.Call, scope: FunctionInfo | None, mark: _Mark
    ) -> None:
        for argument, value in compiled_functions(call):
            kind = ContextKind.LOSS if argument == "loss" else ContextKind.METRIC
            context = GraphContext(
                kind, f"passed to `compile({argument}=...)`: Keras calls it inside the "
                "traced train step", self.module.flavor == "2", origin=self.module.span(call))
            function = (self.module.function_named(value, scope)
                        or self.module.made_function(value, scope)
                        or self._bound_method(value, scope))
            if function is not None and len(function.parameters) >= 2:
                mark(function, context)
            elif function is None and (imported := self._other_module_function(value)):
                # a loss of another module of the project: its module learns it (seeds)
                self.outgoing.append(CrossModuleCall(*imported, context))

    def _close_over_calls(self, found: dict[FunctionInfo, GraphContext]) -> None:
        """Functions called from (or defined inside) graph functions run in graph mode too;
        not one defined where the graph never goes (an `if backend() == "theano":` branch, an
        eager-only branch)."""
        work = list(found)
        nested: dict[FunctionInfo, list[FunctionInfo]] = {}
        for info in self.module.index.functions:
            if info.outer is not None:
                nested.setdefault(info.outer, []).append(info)
        while work:
            caller = work.pop()
            called, elsewhere = self._calls_of_others(caller)
            inside = nested.get(caller, [])
            if inside:
                unseen = guarded_nodes(self.module, caller)
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
            eager = eager_nodes(self.module, caller)  # calls made there run eagerly: not followed
            for call in caller.calls:
                if call in eager:
                    continue
                target = self.called_function(call.func, caller)
                if target is not None and target.name == "build" and target.cls is not None \
                        and self.module.keras_kind(target.cls) is not None:
                    continue  # set-up: Keras builds a layer once (`if not self.built:` too)
                if target is not None:
                    targets.append(target)
                elif (imported := self._other_module_function(call.func)) is not None:
                    elsewhere.append(imported)
            found = self._calls_out[caller] = (targets, elsewhere)
        return found

    def called_function(self, func: ast.AST, caller: FunctionInfo) -> FunctionInfo | None:
        """The function of this module that a call of `func` in `caller` runs: a function or
        method it names, the `__init__` of a plain class it constructs, or the method of a plain
        object it holds."""
        return (self.module.function_named(func, caller) or self._constructor(func)
                or self._object_method(func, caller))

    def _constructor(self, func: ast.AST) -> FunctionInfo | None:
        """The `__init__` that `Clip(...)` runs, for a plain class of this module (a Keras
        layer's is the right place for what runs once)."""
        cls = self.module.index.module_classes().get(func.id) if isinstance(func, ast.Name) else None
        if cls is None or self.module.keras_kind(cls) is not None:
            return None
        return cls.methods.get("__init__")

    def _object_method(self, func: ast.AST, caller: FunctionInfo) -> FunctionInfo | None:
        """`shift(x)` or `shift.apply(x)` where `shift` holds an instance of one plain class of
        this module: a name bound once to one (in the caller, else at module level), or a
        parameter given one at every call of the caller in this module
        (`decode_batch(ParityDecoder(...), x)`, or a name bound to one), or an attribute of
        `self` that the caller's class sets only to one (`self.projection(x)`): that method
        (`__call__` for a call of the object)."""
        held = self._attribute_class(func, caller)
        if held is not None:
            return self.module.method_of(*held)
        if isinstance(func, ast.Name):
            name, method = func, "__call__"
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name, method = func.value, func.attr
        else:
            return None
        if name.id in self.module.imports.aliases:
            return None  # a module or an imported function (`tf.reshape`): the common case
        cls = (self._passed_class(name.id, caller) if name.id in caller.parameter_names
               else self._instance_class(name, caller))
        return None if cls is None else self.module.method_of(cls, method)

    def _attribute_class(self, func: ast.AST, caller: FunctionInfo) -> tuple[ClassInfo, str] | None:
        """The plain class whose instance `self.<name>` holds, with the method `func` calls
        (`self.projection(x)`: `__call__`; `self.projection.solve(x)`: `solve`), when every
        assignment of `self.<name>` in the caller's class makes one of that class."""
        method = "__call__"
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute):
            func, method = func.value, func.attr
        owner = caller.cls
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "self" and owner is not None
                and func.attr not in owner.methods):
            return None
        key = (owner, func.attr)
        if key not in self._held:
            classes = set()
            for function in owner.methods.values():
                for assign in function.nodes.of(ast.Assign):
                    if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                           and t.value.id == "self" and t.attr == func.attr
                           for t in assign.targets):
                        classes.add(self._instance_class(assign.value, function))
            self._held[key] = classes.pop() if len(classes) == 1 else None
        cls = self._held[key]
        return None if cls is None else (cls, method)

    def _passed_class(self, parameter: str, caller: FunctionInfo) -> ClassInfo | None:
        """The one plain class of this module whose instances every call of the function
        `caller` (not a method) in this module passes as `parameter`."""
        if caller.cls is not None:
            return None
        position = caller.parameter_names.index(parameter)
        classes: dict[str, ClassInfo] = {}
        for call, scope in self.module.index.calls_named({caller.name}):
            if self.module.function_named(call.func, scope) is not caller:
                continue
            argument = (call.args[position] if position < len(call.args)
                        else keyword(call, parameter))
            cls = self._instance_class(argument, scope)
            if cls is None:
                return None
            classes[cls.name] = cls
        return next(iter(classes.values())) if len(classes) == 1 else None

    def _bound_method(self, node: ast.AST, scope: FunctionInfo | None) -> FunctionInfo | None:
        """`net.hinge` where `net` is bound once to an instance of a plain class of this
        module (`compile(loss=net.hinge)`, `tf.function(policy.action)`): that method."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            return None
        cls = self._instance_class(node.value, scope)
        return None if cls is None else self.module.method_of(cls, node.attr)

    def _instance_class(self, node: ast.AST | None, scope: FunctionInfo | None) -> ClassInfo | None:
        """The plain class of this module that `node` makes an instance of: `Clip(...)`, or a
        name bound once (in its scope, else at module level) to such a call."""
        if isinstance(node, ast.Name):
            assigned = (scope.nodes if scope is not None else self.module.index.module_nodes
                        ).assignments_to(node.id)
            if not assigned and scope is not None:
                assigned = self.module.index.module_nodes.assignments_to(node.id)
            node = assigned[0].value if len(assigned) == 1 else None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            return None
        cls = self.module.index.module_classes().get(node.func.id)
        return cls if cls is not None and self.module.keras_kind(cls) is None else None

    def _called_from(self, caller: FunctionInfo, context: GraphContext) -> GraphContext:
        """The context of the functions a graph function calls."""
        return GraphContext(
            ContextKind.CALLED,
            f"called from `{caller.qualname}`, which runs in graph mode ({context.kind.value})",
            context.autograph,
            always_graph=context.always_graph,
            origin=self.module.span(caller.node),
            root_kind=context.origin_kind,
            caller=caller.qualname,
        )

    def _other_module_function(self, func: ast.AST) -> tuple[str, str] | None:
        """(module, function) for a callee imported from another module: the project-wide
        pass looks for it among the workspace's modules."""
        if isinstance(func, ast.Name) and self.module.is_imported(func):
            if func.id in self.module.imports.relative:
                level, dotted = self.module.imports.relative[func.id]
                module, _, name = dotted.rpartition(".")
                return "." * level + module, name
            module, _, name = self.module.imports.aliases[func.id].rpartition(".")
            return (module, name) if module else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            imported = self.module.imports.aliases.get(func.value.id)
            if imported is not None and self.module.is_imported(func.value):
                return imported, func.attr
        return None


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


PYTHON_SCALARS = frozenset({"int", "float", "bool", "str"})  # annotations of Python values


def _takes_one_batch(step: FunctionInfo) -> bool:
    """Whether Keras can call the step as it does, with one batch (`train_step(self, data)`):
    at most one parameter after `self` without a default."""
    args = step.node.args
    positional = [*args.posonlyargs, *args.args][1:]
    required = len(positional) - len(args.defaults)
    kw_required = sum(default is None for default in args.kw_defaults)
    return required <= 1 and kw_required == 0


def _takes_inputs(call: FunctionInfo) -> bool:
    """Whether a layer's `call` can be given a tensor: not `def call(self)` nor one whose every
    parameter is an annotated Python scalar (`def call(self, minutes: int = 1)`), a class
    that only borrows `Layer`'s name and runs as a plain object, eagerly."""
    node = call.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return True
    arguments = node.args
    if arguments.vararg or arguments.kwarg:
        return True
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs][1:]
    return any(not (isinstance(p.annotation, ast.Name) and p.annotation.id in PYTHON_SCALARS)
               for p in parameters)
