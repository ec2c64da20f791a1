"""Python side effects in traced code, for TFI006 and TFI022 (not a rule).

`side_effects(module)` finds, in every graph function, the Python side effects that run while
TensorFlow traces it, and says of each whether the user expects it at every step:

- **per step** (TFI006, on by default): printing or logging a *value* (a tensor, or what only
  running code knows: `tf.executing_eagerly()`, `.numpy()`, `time.time()`); counting or
  accumulating (`global n; n += 1`, `self.calls += 1`, `o.count += 1` on a parameter,
  `self.total = self.total + x`, `self.seen.append(x)`, a tensor written to an attribute the
  call read before, or that one branch of a tf-keras call keeps for another to read); a tensor
  put into a container that
  outlives the trace (it leaks), or kept on a Keras model by its traced step for a callback
  that reads `self.model.<name>`; and any side effect under an `if`/`while` on a tensor that
  AutoGraph converts (the Python runs while tracing both branches, whatever the data);
- **fixed at trace time** (TFI022, opt-in): printing, logging or writing what cannot change
  from step to step (constant text, shapes, dtypes, names, Python settings): trace-time
  logging, often on purpose.

What is never reported: code that cannot see a symbolic tensor (`guards.py`), a function's own
locals, `tf.py_function` callbacks, one-off warnings with constant text, a tensor kept on
`self` for the rest of the call (written, read back in the same trace: a per-call scratch
value), a list on `self` made anew earlier in the same call and then appended to, a flag
`and`/`or`-ed with Python truth values (`self.frozen = self.frozen and self.trainable`),
creation once behind a guard, values that are not tensors (modules, variables
created eagerly, shapes) put into outer containers, and a file opened to be read
(`open(path)`, `open(path, "rb")`: configuration read as the graph is built).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind, GraphContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo, ScopeNodes, self_attribute
from tf_insight.check.names import TF_FUNCTION
from tf_insight.check.rules._attributes import (
    VARIABLE_ASSIGNS,
    attribute_stores,
    never_read,
    variable_value,
)
from tf_insight.check.rules._tensors import (
    TensorFacts,
    asks_value,
    context_label,
    module_stores,
    tensor_facts,
    tensorflow_alias,
)
from tf_insight.check.rules._tf_functions import python_bool_parameter
from tf_insight.check.shared import Shared
from tf_insight.findings import Edit, Fix

PER_STEP_LEVELS = frozenset({"debug", "info", "log", "vlog", "log_every_n", "log_first_n",
                             "log_every_n_seconds", "log_if"})
ALL_LEVELS = PER_STEP_LEVELS | {"warning", "warn", "error", "exception", "critical", "fatal"}
LOGGING_MODULES = ("logging", "absl.logging", "tensorflow.compat.v1.logging")
LOGGER_FACTORIES = frozenset({"logging.getLogger", "tensorflow.get_logger",
                              "absl.logging.get_absl_logger"})
FILE_WRITERS = frozenset({
    "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt", "json.dump",
    "pickle.dump", "tensorflow.io.gfile.GFile", "tensorflow.compat.v1.gfile.GFile",
    "tensorflow.compat.v1.gfile.Open",
})
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "pop",
                      "popitem", "remove", "discard", "clear", "appendleft", "extendleft"})
GROWERS = frozenset({"append", "extend", "insert", "add", "update", "appendleft", "extendleft"})
# what changes a list or a dict only (`update`/`add` may be a progress bar's, a set's: not
# structures TensorFlow compares after a trace)
ARGUMENT_CHANGERS = frozenset({"append", "extend", "insert", "setdefault"})
STANDARD_STREAM_WRITES = frozenset({"sys.stdout.write", "sys.stderr.write"})
REPORTED_FUNCTIONS = FILE_WRITERS | STANDARD_STREAM_WRITES
# Keras's own per-call losses and metrics: Keras collects them in its traced step, but in a
# method the user decorates with `tf.function` they are tensors of that inner graph
KERAS_COLLECTORS = frozenset({"add_loss", "add_metric"})
REPORTED_METHODS = ALL_LEVELS | MUTATORS | KERAS_COLLECTORS | {"write", "writelines"}
CONTAINER_FACTORIES = frozenset({"list", "dict", "set", "collections.defaultdict",
                                 "collections.deque", "collections.OrderedDict",
                                 "collections.Counter", "defaultdict", "deque",
                                 "OrderedDict", "Counter"})
# Calls whose value only running code knows: shown once per trace, they mislead.
RUN_TIME_VALUES = frozenset({
    "tensorflow.executing_eagerly", "tensorflow.inside_function", "time.time",
    "time.perf_counter", "time.monotonic", "datetime.datetime.now",
})
# what a tensor tells at trace time (a graph tensor's `device` is its placement, "" unset)
STATIC_FACTS = frozenset({"shape", "get_shape", "dtype", "name", "ndim", "rank", "__name__",
                          "device"})
COLLECTIONS = frozenset({"set", "frozenset", "list", "tuple", "dict", "sorted"})
STATE_IN_A_VARIABLE = "keep the state in a `tf.Variable` and `.assign(...)` it"


@dataclass(frozen=True)
class SideEffect:
    node: ast.AST
    per_step: bool  # TFI006 (the user expects it at every step) or TFI022 (trace-time logging)
    message: str
    label: str  # what it is, for messages: "`print(...)`"
    fix: Fix | None = None
    one_off: bool = False  # a warning with constant text: meant to show once, reported by neither
    detail: str = ""
    help: str = ""


SIDE_EFFECTS: Shared[list[SideEffect]] = Shared("side effects")


def side_effects(module: ModuleContext) -> list[SideEffect]:
    """Every side effect in the focused graph functions, once per module (two rules ask)."""
    return module.shared(SIDE_EFFECTS, lambda: list(_find(module)), id(module.focus))


def _find(module: ModuleContext) -> Iterator[SideEffect]:
    loggers = _bound_names(module, lambda value: isinstance(value, ast.Call) and (
        module.qualname(value.func) in LOGGER_FACTORIES))
    files = _bound_names(module, lambda value: isinstance(value, ast.Call) and (
        isinstance(value.func, ast.Name) and value.func.id == "open"))
    tf_alias = tensorflow_alias(module)
    for function, context in module.graph.focused_functions():
        finder = _Finder(module, function, context, loggers, files, tf_alias)
        for node in function.nodes.of(
                ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete):
            if node in finder.eager:
                continue
            found = finder.call(node) if isinstance(node, ast.Call) else finder.assignment(node)
            if found is not None:
                yield finder.in_tensor_branch(found)


def _asks_numpy(call: ast.Call) -> bool:
    """`x.numpy()` among the call's arguments."""
    return any(asks_value(node) for argument in [*call.args, *(k.value for k in call.keywords)]
               for node in ast.walk(argument))


class _Finder:
    """The side effects of one graph function."""

    def __init__(self, module: ModuleContext, function: FunctionInfo, context: GraphContext,
                 loggers: set[str], files: set[str], tf_alias: str | None) -> None:
        self.module = module
        self.function = function
        self.context = context
        self.loggers = loggers
        self.files = files
        self.tf_alias = tf_alias
        self.eager = guarded_nodes(module, function)
        self.where = context_label(function, context)

    @property
    def facts(self) -> TensorFacts:
        return tensor_facts(self.module, self.function, self.context)

    # ---- calls -----------------------------------------------------------------------------

    def call(self, node: ast.Call) -> SideEffect | None:
        module, where = self.module, self.where
        func = node.func
        qualname = module.qualname(func)
        if isinstance(func, ast.Name) and func.id in ("print", "open") and qualname is None and (
                not _shadowed(module, self.function, func.id)):
            if func.id == "print":
                if _asks_numpy(node):
                    return None  # its argument raises while tracing: TFI012's, it never prints
                return self._output(node, "`print(...)`", "use `tf.print(...)`",
                                    _tf_print_fix(module, node, self.tf_alias))
            if _reads_only(node):
                return None  # configuration read as the graph is built: the same every step
            return SideEffect(node, True, f"`open(...)` in {where} runs once per trace, not at "
                              "every step", "`open(...)`",
                              detail="the file is opened and written while tracing only",
                              help="write from eager code, or use "
                              "`tf.io.write_file`/`tf.summary`")
        if qualname not in REPORTED_FUNCTIONS and not (
            isinstance(func, ast.Attribute) and func.attr in REPORTED_METHODS
        ):
            return None  # most calls: nothing to describe
        label = f"`{module.source.segment(func)}(...)`"
        if qualname in FILE_WRITERS:
            return self._output(node, label, "write from eager code or use "
                                "`tf.io.write_file`/`tf.summary`", None, file=True)
        if qualname in STANDARD_STREAM_WRITES:
            return self._output(node, label, "use `tf.print(...)`", None)
        if not isinstance(func, ast.Attribute):
            return None
        if self._is_logging(func, qualname):
            effect = self._output(node, label, "use `tf.print(...)` to log values at every step, "
                                  "or log from eager code (a callback)", None)
            if func.attr not in PER_STEP_LEVELS and not effect.per_step:
                return dataclasses.replace(effect, one_off=True)  # a notice meant to show once
            if effect.per_step and self._exported_signature:
                return dataclasses.replace(effect, per_step=False)  # logged once, at export
            return effect
        receiver = func.value
        if func.attr in ("write", "writelines") and isinstance(receiver, ast.Name) and (
            receiver.id in self.files and not _shadowed(module, self.function, receiver.id)
        ):
            return self._output(node, label, "write from eager code or use "
                                "`tf.io.write_file`", None, file=True)
        if func.attr in MUTATORS:
            return self._mutation(node, func, label)
        if func.attr in KERAS_COLLECTORS:
            return self._collected_in_inner_graph(node, func, label)
        return None

    def _collected_in_inner_graph(self, node: ast.Call, func: ast.Attribute, label: str
                                  ) -> SideEffect | None:
        """`self.add_loss(t)` in a Keras layer's method decorated with `tf.function`: the
        tensor belongs to that function's graph, and Keras's step, traced apart, reads it."""
        function = self.function
        if not (isinstance(func.value, ast.Name) and func.value.id == "self"
                and function.cls is not None
                and self.module.keras_kind(function.cls) in ("layer", "model")
                and isinstance(function.node, ast.FunctionDef | ast.AsyncFunctionDef)
                and any("tf.function" in self.module.decorator_effects(d)
                        for d in function.node.decorator_list)
                and any(self.facts.is_tensor(a) for a in node.args)):
            return None
        return SideEffect(node, True, f"{label} in {self.where} keeps a tensor of the "
                          f"`tf.function` `{function.qualname}` on the layer", label,
                          detail="Keras reads the layer's losses in its own traced step, where "
                          "this tensor of the inner function's graph `cannot be accessed ... "
                          "which is out of scope`",
                          help=f"remove `@tf.function` from `{function.name}`: Keras traces it "
                          "already")

    @cached_property
    def _exported_signature(self) -> bool:
        """A serving signature: a `tf.function` with a fixed `input_signature` that the function
        defining it returns, or that is given to `signatures=` (traced once, when the model is
        exported; what it logs is the structure of its inputs, on purpose)."""
        function, context = self.function, self.context
        if context.kind is not ContextKind.TF_FUNCTION or not context.input_signature:
            return False
        name = function.name
        outer = function.outer
        if outer is not None and any(isinstance(r.value, ast.Name) and r.value.id == name
                                     for r in outer.nodes.of(ast.Return)):
            return True
        return any(k.arg == "signatures" and any(isinstance(n, ast.Name) and n.id == name
                                                 for n in ast.walk(k.value))
                   for call, _ in self.module.calls_named("save") for k in call.keywords)

    def _is_logging(self, func: ast.Attribute, qualname: str | None) -> bool:
        level = func.attr
        if level not in ALL_LEVELS:
            return False
        if qualname is not None and qualname.rsplit(".", 1)[0] in LOGGING_MODULES:
            return True
        if isinstance(func.value, ast.Name) and func.value.id in self.loggers:
            return not _shadowed(self.module, self.function, func.value.id)
        return isinstance(func.value, ast.Call) and (
            self.module.qualname(func.value.func) in LOGGER_FACTORIES)

    def _output(self, node: ast.Call, label: str, advice: str, fix: Fix | None,
                file: bool = False) -> SideEffect:
        """A print, log or write: per step when it shows a value, else trace-time logging; in a
        test module, trace-time logging whatever it shows (a test case runs once: a print in its
        traced function is its author's look at the trace)."""
        values = self._values(node)
        what = "writes to a file" if file else "runs"
        if values and not self.module.test_module:
            return SideEffect(node, True, f"{label} in {self.where} {what} once per trace, not at "
                              "every step", label, fix,
                              detail=f"it shows {values} as traced (symbolic), not the values at "
                              "each step", help=advice)
        shows = (f"it shows {values} as traced (symbolic), in a test case that runs once"
                 if values else "it shows what is fixed at trace time (text, shapes, settings)")
        return SideEffect(node, False, f"{label} in {self.where} {what} once per trace", label, fix,
                          detail=f"{shows}: trace-time logging",
                          help=f"if it is meant for every step, {advice}")

    def _values(self, node: ast.Call) -> str:
        """The arguments that change from step to step: tensors, and what only running code
        knows (`tf.executing_eagerly()`, `.numpy()`, the time)."""
        found: list[ast.AST] = []
        for part in [*node.args, *(k.value for k in node.keywords)]:
            found += self._shown_values(part)
        return ", ".join(dict.fromkeys(f"`{self.facts.label(v)}`" for v in found))

    def _shown_values(self, node: ast.AST) -> list[ast.AST]:
        """The parts of an argument whose value changes from step to step: tensors (also
        inside f-strings, `%`/`.format`, containers, `str(...)`), what only running code knows;
        not a tensor's static facts (`x.shape`, `x.dtype`, `len(x)`)."""
        if self.facts.is_tensor(node) or self._run_time_value(node):
            return [node]
        if isinstance(node, ast.Attribute) and node.attr in STATIC_FACTS:
            return []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr == "keys" and not node.args):
            return []  # a dict's keys are its structure, fixed at trace time
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id in ("len", "type", "isinstance", "id")):
            return []
        return [found for child in ast.iter_child_nodes(node)
                if isinstance(child, ast.expr) for found in self._shown_values(child)]

    def _run_time_value(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        return self.module.qualname(node.func) in RUN_TIME_VALUES or asks_value(node)

    def _mutation(self, node: ast.Call, func: ast.Attribute, label: str) -> SideEffect | None:
        receiver = func.value
        argument = self._modified_argument(receiver) if func.attr in ARGUMENT_CHANGERS else None
        if argument is not None:
            return self._argument_modified(node, label, argument)
        values = [a for a in node.args if self.facts.is_tensor(a)]
        target = self._written_container(receiver)
        if target is not None and values:
            return self._leak(node, target, label, values)
        if (self_attribute(receiver) and func.attr in GROWERS and values
                and not self._written_before(node, _shape(receiver))
                and not self._tensorflow_object(receiver)):
            return SideEffect(node, True, f"{label} in {self.where} adds to `"
                              f"{self.module.source.segment(receiver)}` once per trace, not at "
                              "every step", label,
                              detail=f"it keeps the graph tensor(s) {_shown(self.module, values)} "
                              "after the trace (using them later raises `... is out of scope`)",
                              help="return them, or keep state in a `tf.Variable`")
        return None

    def _tensorflow_object(self, receiver: ast.expr) -> bool:
        """`self.table` that the class fills only with a TensorFlow object
        (`tf.lookup.experimental.MutableHashTable(...)`): its `insert` is an op, which runs at
        every step, not a Python container's."""
        name, cls = self_attribute(receiver), self.function.cls
        if name is None or cls is None:
            return False
        stores = attribute_stores(self.module, cls).get(name, [])
        return bool(stores) and all(
            isinstance(store.value, ast.Call)
            and (self.module.qualname(store.value.func) or "").startswith("tensorflow.")
            for store in stores)

    def _argument_modified(self, node: ast.AST, label: str, argument: str) -> SideEffect:
        return SideEffect(node, True, f"{label} in {self.where} modifies its argument "
                          f"`{argument}`", label,
                          detail="a `tf.function` must not modify the containers it is given: "
                          "tracing raises `ValueError: ... should not modify its Python input "
                          "arguments` (in `Dataset.map` too)",
                          help=f"change a copy (`{argument} = {argument}.copy()` first) and "
                          "return it")

    def _leak(self, node: ast.AST, container: str, what: str,
              values: list[ast.expr]) -> SideEffect:
        return SideEffect(node, True, f"{what} in {self.where} puts the graph tensor "
                          f"{_shown(self.module, values)} into {container} once per trace", what,
                          detail="the tensor leaks out of the trace: using it later raises `... is "
                          "out of scope and cannot be used here`",
                          help="return it instead")

    # ---- assignments ---------------------------------------------------------------------

    def assignment(self, node: ast.AST) -> SideEffect | None:
        assert isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete)
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
        value = getattr(node, "value", None)
        declared = _declared_outer(self.function)
        source = self.module.source
        label = f"`{source.segment(node)}`"
        for target in targets:
            if isinstance(target, ast.Name) and target.id in declared:
                if declared[target.id] == "nonlocal" and self._fresh_per_call(target.id):
                    return None  # the enclosing call's own state, made anew each time
                if isinstance(node, ast.AugAssign) or (
                        value is not None and (self.facts.is_tensor(value)
                                               or _reads(value, target.id))):
                    return SideEffect(node, True, f"{label} in {self.where} changes the "
                                      f"{declared[target.id]} `{target.id}` once per trace, not at "
                                      "every step", label,
                                      detail="the name changes while tracing only; the graph's "
                                      "later runs leave it as it is", help=STATE_IN_A_VARIABLE)
                return None  # a flag set once per trace (`first_call = False`): on purpose
            if _into_fresh_list(target) or self._restored(target):
                continue
            argument = self._modified_argument(target.value) if isinstance(
                target, ast.Subscript) else None
            if argument is not None:
                return self._argument_modified(node, label, argument)
            if isinstance(target, ast.Subscript):
                container = self._written_container(target.value)
                if container is not None and value is not None and self.facts.is_tensor(value):
                    return self._leak(node, container, f"`{source.segment(target)} = ...`",
                                      [value])
            replaced = self._replaced_variable(target, value)
            if replaced is not None:
                return SideEffect(node, True, f"{label} in {self.where} replaces the variable "
                                  f"`self.{replaced}` with a graph tensor", label,
                                  detail="once per trace: the variable is not updated at any "
                                  f"step, and what reads `self.{replaced}` afterwards gets the "
                                  "trace's tensor", help=f"use `self.{replaced}.assign(...)`")
            reader = self._read_by_callback(target, value)
            if reader is not None:
                return SideEffect(node, True, f"{label} in {self.where} keeps a graph tensor on "
                                  f"the model, and `{self.module.source.segment(reader)}` reads it "
                                  "while `fit` runs", label,
                                  detail="the step is traced once: what the callback reads is the "
                                  "trace's symbolic tensor, not the batch's value (`... is out of "
                                  "scope and cannot be used here`)",
                                  help="return the value in the step's logs (`return {\"loss\": "
                                  "loss, ...}`), or `.assign` it to a `tf.Variable`")
            if self._kept_from_first_trace(node, target, value):
                return SideEffect(node, True, f"{label} in {self.where} keeps a tensor of the "
                                  f"first trace in `{source.segment(target)}`", label,
                                  detail="the `if` above sets it only in the first trace; a "
                                  "retrace reads that trace's tensor and raises `... is out of "
                                  "scope and cannot be used here`",
                                  help="compute it at every call, or make it once in `__init__` "
                                  "or under `tf.init_scope()`")
            if self._kept_for_a_later_call(node, target, value):
                return SideEffect(node, True, f"{label} in {self.where} keeps tensors on "
                                  f"`{source.segment(target)}` for a later call to read", label,
                                  detail="the branch that reads them runs in another call of the "
                                  "layer: traced apart (tf-keras tracing each call to save a "
                                  "SavedModel, a `tf.function` per call) it reads another "
                                  "graph's tensors and raises `... is out of scope and cannot be "
                                  "used here`; in one graph it reads what the trace computed",
                                  help="return the values from the first call and pass them to "
                                  "the second, or `.assign` them to `tf.Variable`s")
            if isinstance(target, ast.Attribute | ast.Subscript) and self._accumulates(
                    node, target):
                return SideEffect(node, True, f"{label} in {self.where} updates "
                                  f"`{source.segment(target)}` once per trace, not at every step",
                                  label, detail="the Python object keeps what the trace computed",
                                  help=STATE_IN_A_VARIABLE)
        return None

    def _modified_argument(self, container: ast.AST) -> str | None:
        """`features[name] = ...`, `items.append(...)` on a parameter of a function decorated
        with `tf.function` itself (not a helper it calls, nor a decorator of the project's that
        may pass copies, nor a copy made first): the argument's container, which TensorFlow
        checks after the trace."""
        if not (self.context.kind is ContextKind.TF_FUNCTION and isinstance(container, ast.Name)
                and any(self.module.refers_to(getattr(d, "func", d), TF_FUNCTION)
                        for d in self.function.decorators)):
            return None
        name = container.id
        if name not in self.function.parameter_names[1 if self.function.cls else 0:]:
            return None
        rebound = any(node.id == name and node.ctx.__class__ is ast.Store
                      for node in self.function.nodes.of(ast.Name))  # a copy, a new value
        return None if rebound else name

    def _restored(self, target: ast.AST) -> bool:
        """`state["tape"] = ...` and `del state["tape"]` in the same function: the key is
        set for the call's own use and removed again, the container is left as it was."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return False
        name, key = target.value.id, ast.dump(target.slice)
        stores = [t for node in self.function.nodes.of(ast.Assign, ast.Delete)
                  for t in node.targets if isinstance(t, ast.Subscript)
                  and isinstance(t.value, ast.Name) and t.value.id == name
                  and ast.dump(t.slice) == key]
        return {type(t.ctx) for t in stores} == {ast.Store, ast.Del}

    def _accumulates(self, node: ast.AST, target: ast.Attribute | ast.Subscript) -> bool:
        """`self.n += 1`, `o.count += 1` (o a `tf.function`'s parameter: the caller's
        object), `self.total = self.total + x`, `self._w[i] = self._w[i] * x`: state carried
        from step to step, which the user expects to change at every step. Not a value the
        same call wrote earlier (`self.s = sample(); self.s = tf.cast(self.s, d)`: per-call
        scratch), nor its static facts (`self.k = init(self.k.shape)`)."""
        root: ast.expr = target
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name) or not (root.id in ("self", "cls") or (
                self.context.kind is ContextKind.TF_FUNCTION
                and root.id in self.function.parameter_names)):
            return False
        if isinstance(target, ast.Attribute) and root.id in ("self", "cls") and never_read(
                self.module, target.attr):
            return False  # a count nothing reads: nothing sees it stop at the first trace
        shape = _shape(target.value if isinstance(target, ast.Subscript) else target)
        if self._written_before(node, shape) or self._guarded_by_itself(node, shape):
            return False
        value = getattr(node, "value", None)
        if value is not None and (self._python_structure(value) or self._flag(value, shape)):
            return False
        if self.module.flavor == "2" and _own_assign(value, shape):
            return False  # tf.Variable.assign_add returns the variable (Keras 3's: a tensor)
        if isinstance(node, ast.AugAssign):
            return True
        return value is not None and (_reads_state(value, shape) or (
            self.facts.is_tensor(value) and not variable_value(self.module, value)
            and not self._stored_variable(value) and self._read_before(node, shape)
            and not self._written_after(node, shape)))

    def _stored_variable(self, value: ast.AST) -> bool:
        """`self.moving_mean`, an attribute the class makes a variable (`add_weight`,
        `tf.Variable`): the variable itself, not a value of the trace; what reads it later
        sees its value then (bench/precision/checks/variable_kept_on_self_in_call.py)."""
        name, cls = self_attribute(value), self.function.cls
        return name is not None and cls is not None and any(
            variable_value(self.module, store.value)
            for store in attribute_stores(self.module, cls).get(name, []))

    def _kept_for_a_later_call(self, node: ast.AST, target: ast.AST,
                               value: ast.AST | None) -> bool:
        """`self.stats = (mean, std)` in one branch of a call, read where that branch did not
        run: what a later call reads is what an earlier one left. tf-keras only: it traces each
        call of a layer apart to save a SavedModel (`model.save`, `ModelCheckpoint`'s default);
        Keras 3 traces a model's calls of it into one graph."""
        if self.module.flavor != "2" or not self_attribute(target) or value is None or not (
                self._holds_tensor(value)) or variable_value(self.module, value):
            return False
        shape = _shape(target)
        return (self._read_on_another_path(node, shape) and not self._written_before(node, shape)
                and not self._written_after(node, shape))

    def _holds_tensor(self, value: ast.AST) -> bool:
        """A tensor, or a tuple or list of them (`self.stats = (mean, std)`)."""
        if isinstance(value, ast.Tuple | ast.List) and value.elts:
            return all(self.facts.is_tensor(element) for element in value.elts)
        return self.facts.is_tensor(value)

    def _read_on_another_path(self, node: ast.AST, shape: str) -> bool:
        """Whether the function reads the attribute where `node`'s branch did not run: in the
        other branch of its `if`, or after an `if` whose branch returns (`if not restore:
        self.stats = ...; return ...` then `mean, std = self.stats`): a later call of the
        layer reads what an earlier one left, another graph's tensors once Keras traces the
        calls apart."""
        child, parent = node, self.module.index.parent(node)
        while parent is not None and parent is not self.function.node:
            if isinstance(parent, ast.If):
                branch, other = ((parent.body, parent.orelse) if child in parent.body
                                 else (parent.orelse, parent.body))
                reads = [read for read in self.function.nodes.of(ast.Attribute)
                         if isinstance(read.ctx, ast.Load) and _shape(read) == shape]
                if any(_within(read, other) for read in reads):
                    return True
                if branch and isinstance(branch[-1], ast.Return | ast.Raise):
                    end = parent.end_lineno or parent.lineno
                    return any(read.lineno > end for read in reads)
                return False
            child, parent = parent, self.module.index.parent(parent)
        return False

    def _read_before(self, node: ast.AST, shape: str) -> bool:
        """Whether the function reads the attribute's value before `node` writes a tensor to
        it (`loss = self.r - y; ...; self.r = tf.sort(y)[k]`): what it reads is the tensor an
        earlier trace left, as state carried from step to step."""
        line = getattr(node, "lineno", 0)
        return any(
            read.lineno < line and isinstance(read.ctx, ast.Load) and _shape(read) == shape
            and not self._static_fact_of(read)
            for read in self.function.nodes.of(ast.Attribute))

    def _written_after(self, node: ast.AST, shape: str) -> bool:
        """Whether the function writes the attribute again after `node`: set for the rest of
        the call, then restored (`self.kernel = standardized; ...; self.kernel = kernel`)."""
        line = getattr(node, "end_lineno", 0)
        return any(other.lineno > line and any(_shape(target) == shape for target in (
            other.targets if isinstance(other, ast.Assign) else [other.target]))
            for other in self.function.nodes.of(ast.Assign, ast.AnnAssign))

    def _static_fact_of(self, read: ast.Attribute) -> bool:
        parent = self.module.index.parent(read)
        return isinstance(parent, ast.Attribute) and parent.attr in STATIC_FACTS

    def _kept_from_first_trace(self, node: ast.AST, target: ast.AST,
                               value: ast.expr | None) -> bool:
        """`if self.parity is None: self.parity = tf.cast(...)`: a graph tensor (not a
        variable) cached on the object by the first trace, which every later trace reads; the
        function writes the attribute nowhere else (not set and restored)."""
        name = self_attribute(target)
        if name is None or value is None or not self.facts.is_tensor(value) or variable_value(
                self.module, value):
            return False
        writes = [other for other in self.function.nodes.of(ast.Assign)
                  if any(self_attribute(t) == name for t in other.targets)]
        return writes == [node] and any(_unset(test, name) for test in self._tests_above(node))

    def _guarded_by_itself(self, node: ast.AST, shape: str) -> bool:
        """Under an `if` that tests the state it changes (`if self.axis < 0: self.axis +=
        ndims`, `if self.n is None: ...`): a one-off normalisation or set-up, true at the
        first trace and false after it, not state the user expects to change per step."""
        return any(isinstance(n, ast.Attribute | ast.Subscript) and _shape(n) == shape
                   for test in self._tests_above(node) for n in ast.walk(test))

    def _tests_above(self, node: ast.AST) -> Iterator[ast.expr]:
        """The tests of the `if`s in the function whose body or `else` holds `node`."""
        index = self.module.index
        child, parent = node, index.parent(node)
        while parent is not None and parent is not self.function.node:
            if isinstance(parent, ast.If) and child is not parent.test:
                yield parent.test
            child, parent = parent, index.parent(parent)

    def _flag(self, value: ast.expr, shape: str) -> bool:
        """`and`/`or` of no tensor (`self.frozen = self.frozen and self.trainable`), or a
        default filled in (`self.k = self.k if self.k else n`, `n` from a static shape): the
        same however many times it runs, so running once per trace changes nothing."""
        if isinstance(value, ast.IfExp):
            picks = all(_shape(branch) == shape or not _reads_state(branch, shape)
                        for branch in (value.body, value.orelse))
        else:
            picks = isinstance(value, ast.BoolOp)
        return picks and not any(self.facts.is_tensor(node) for node in ast.walk(value)
                                 if isinstance(node, ast.expr))

    def _python_structure(self, value: ast.expr) -> bool:
        """A Python collection with no tensor in it (`set(inputs.keys())`, `[name]`): what
        is collected is the structure the trace sees (keys, names), fixed until a retrace."""
        collection = isinstance(value, ast.List | ast.Tuple | ast.Set | ast.Dict) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in COLLECTIONS)
        return collection and not self._shown_values(value)

    def _replaced_variable(self, target: ast.AST, value: ast.AST | None) -> str | None:
        """`self.total = x` where the class makes `self.total` a variable elsewhere
        (`__init__`, `build`, `reset_state`) and another method reads it on its own (a
        metric's `result()`): the state is replaced, not assigned, and the reader gets the
        trace's tensor. (Replaced and read within one call, as a weight-normalised kernel is
        before the layer's own `call` uses it, it is per-call scratch.)"""
        name = self_attribute(target)
        cls = self.function.cls
        if name is None or cls is None or value is None or not self.facts.is_tensor(value):
            return None
        stores = attribute_stores(self.module, cls).get(name, [])
        if not any(variable_value(self.module, store.value) for store in stores
                   if store.method is not self.function):
            return None
        setup = {store.method for store in stores}
        writer_name = self.function.name
        for method in cls.methods.values():
            if method is self.function or method in setup:
                continue
            reads = any(self_attribute(node) == name for node in method.nodes.of(ast.Attribute))
            calls_writer = any(isinstance(call.func, ast.Attribute)
                               and call.func.attr == writer_name for call in method.calls)
            if reads and not calls_writer:
                return name
        return None

    def _read_by_callback(self, target: ast.AST, value: ast.AST | None) -> ast.AST | None:
        """`self.last_batch = (y, y_pred)` in the traced step of a Keras model, where a
        callback reads `self.model.last_batch`: the read (what it gets is the trace's tensor)."""
        name = self_attribute(target)
        cls = self.function.cls
        if name is None or value is None or cls is None or self.module.keras_kind(cls) != "model":
            return None
        values = value.elts if isinstance(value, ast.Tuple | ast.List) else [value]
        if not any(self.facts.is_tensor(one) for one in values):
            return None
        return _callback_reads(self.module).get(name)

    def _written_before(self, node: ast.AST, shape: str) -> bool:
        """Whether the function assigns the same attribute (or its items) before `node`."""
        line = getattr(node, "lineno", 0)
        for other in self.function.nodes.of(ast.Assign, ast.AnnAssign):
            if other.lineno >= line:
                continue
            targets = other.targets if isinstance(other, ast.Assign) else [other.target]
            for written in targets:
                base = written.value if isinstance(written, ast.Subscript) else written
                if _shape(base) == shape:
                    return True
        return False

    # ---- containers ----------------------------------------------------------------------

    def _written_container(self, receiver: ast.AST) -> str | None:
        """Whose container a write changes, for the message: `the outer `x``, `the caller's
        `xs``."""
        outer = _outer_container(self.module, self.function, receiver)
        if outer is not None:
            return f"the outer `{outer}`"
        parameter = _parameter_container(self.function, self.context, receiver)
        return None if parameter is None else f"the caller's `{parameter}` (a parameter)"

    def _fresh_per_call(self, name: str) -> bool:
        """The nonlocal `name` belongs to an enclosing function that runs in the graph too,
        which calls this one as Python does, directly or through `tf.nest` (`i = -1; def
        c2t(x): nonlocal i; i += 1 ...; tf.nest.map_structure(c2t, args)`): each call of it
        starts the state anew, and this one changes it at each of its own calls, as written.
        Not a function given to a TF op (`tf.while_loop(cond, body, ...)`), which traces it
        once for all its iterations."""
        owner = self.function.outer
        while owner is not None and name not in owner.local_names:
            owner = owner.outer
        if owner is None or self.module.graph.in_graph(owner) is None or isinstance(
                self.function.node, ast.Lambda):
            return False
        inner = self.function.name
        for use in owner.nodes.named(inner):
            parent = self.module.index.parent(use)
            if isinstance(parent, ast.Call) and (parent.func is use or (
                    self.module.qualname(parent.func) or "").startswith("tensorflow.nest.")):
                continue
            if use.ctx.__class__ is not ast.Load:
                continue
            return False
        return True

    # ---- where it runs ---------------------------------------------------------------------

    def in_tensor_branch(self, effect: SideEffect) -> SideEffect:
        """A side effect under AutoGraph-converted control flow on a tensor runs while tracing
        each branch, whatever the data: per step, whatever it shows (not in a test module, see
        `_output`)."""
        if effect.per_step or not self.context.autograph or self.module.test_module:
            return effect
        test = self._tensor_test_above(effect.node)
        if test is None:
            return effect
        shown = self.module.source.segment(test)
        return SideEffect(effect.node, True, f"{effect.label} in {self.where} runs while "
                          "tracing, whatever the data", effect.label, effect.fix,
                          detail=f"AutoGraph turns `{shown}` into a graph condition and traces "
                          "this branch whether or not it is taken",
                          help="use `tf.print(...)`, which runs with the data")

    def _tensor_test_above(self, node: ast.AST) -> ast.expr | None:
        index = self.module.index
        child, parent = node, index.parent(node)
        while parent is not None and parent is not self.function.node:
            if isinstance(parent, ast.If | ast.While) and child is not parent.test and (
                    self.facts.is_tensor(parent.test)
                    or (isinstance(parent.test, ast.Compare)
                        and self.facts.tensor_comparison(parent.test))) and not (
                    self._python_flag(parent.test)):
                return parent.test
            child, parent = parent, index.parent(parent)
        return None

    def _python_flag(self, test: ast.expr) -> bool:
        """A parameter of the tf.function that its callers give Python bools (`first_batch`
        in `step(x, i == 0)`): the branch is Python's, traced once per value."""
        return (self.context.kind is ContextKind.TF_FUNCTION and isinstance(test, ast.Name)
                and test.id in self.function.parameter_names
                and python_bool_parameter(self.module, self.function, test.id))


CALLBACK_READS: Shared[dict[str, ast.Attribute]] = Shared("attributes callbacks read")


def _callback_reads(module: ModuleContext) -> dict[str, ast.Attribute]:
    """The attributes that methods running eagerly read of `self.model` (a Keras callback's
    model), by name: the first read of each."""
    def find() -> dict[str, ast.Attribute]:
        found: dict[str, ast.Attribute] = {}
        if not module.mentions("self.model."):
            return found
        for function in module.index.functions:
            if function.cls is None or module.graph.in_graph(function) is not None:
                continue
            for node in function.nodes.of(ast.Attribute):
                if node.ctx.__class__ is ast.Load and self_attribute(node.value) == "model":
                    found.setdefault(node.attr, node)
        return found

    return module.shared(CALLBACK_READS, find)


def _within(node: ast.AST, statements: list[ast.stmt]) -> bool:
    """Whether `node` lies in these statements (by lines: they are consecutive)."""
    if not statements:
        return False
    end = statements[-1].end_lineno or statements[-1].lineno
    return statements[0].lineno <= getattr(node, "lineno", 0) <= end


def _reads_state(value: ast.AST, shape: str) -> bool:
    """Whether `value` reads the attribute dumped as `shape` (or an item of it) for its value,
    not for a static fact of it (`.shape`, `.dtype`)."""
    static: set[int] = set()
    for inner in ast.walk(value):
        if isinstance(inner, ast.Attribute) and inner.attr in STATIC_FACTS:
            static.update(id(part) for part in ast.walk(inner.value))
    return any(isinstance(inner, ast.Attribute | ast.Subscript) and id(inner) not in static
               and _shape(inner) == shape for inner in ast.walk(value))


def _unset(test: ast.expr, name: str) -> bool:
    """`self.name is None`, `not self.name`, `not hasattr(self, "name")`: a create-once test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        if self_attribute(inner) == name:
            return True
        return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                and inner.func.id == "hasattr" and len(inner.args) == 2
                and isinstance(inner.args[1], ast.Constant) and inner.args[1].value == name)
    return (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Is)
            and self_attribute(test.left) == name
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None)


# Keras properties that build a new list at every access: a write into one changes nothing
# (`layer.trainable_weights[0] = t` leaves the layer's weights as they are; Keras 3 and tf-keras,
# bench/precision/checks/keras_weight_lists_are_copies.py)
FRESH_LISTS = frozenset({"weights", "trainable_weights", "non_trainable_weights", "variables",
                         "trainable_variables", "non_trainable_variables"})


def _own_assign(value: ast.AST | None, shape: str) -> bool:
    """`self.total.assign_add(x)` written back to `self.total`."""
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in VARIABLE_ASSIGNS
            and _shape(value.func.value) == shape)


def _into_fresh_list(target: ast.expr) -> bool:
    return (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
            and target.value.attr in FRESH_LISTS)


def _shape(node: ast.AST) -> str:
    """An expression's structure, whether it is read or written (`self.total`)."""
    return ast.dump(node).replace("ctx=Store()", "ctx=Load()").replace("ctx=Del()", "ctx=Load()")


def _reads(value: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(value))


def _shown(module: ModuleContext, values: list[ast.expr]) -> str:
    return ", ".join(f"`{module.source.segment(v)}`" for v in values)


def _simple(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant | ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _simple(node.value)
    if isinstance(node, ast.Subscript):
        return _simple(node.value) and _simple(node.slice)
    if isinstance(node, ast.Slice):
        return all(part is None or _simple(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, ast.JoinedStr):
        return not any(isinstance(v, ast.FormattedValue) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return _simple(node.operand)
    return False


def _tf_print_fix(module: ModuleContext, call: ast.Call, tf_alias: str | None) -> Fix | None:
    """`print(a, b, sep=...)` → `tf.print(a, b, sep=...)`; only for simple arguments."""
    if tf_alias is None or not all(_simple(a) for a in call.args):
        return None
    for item in call.keywords:
        if item.arg not in ("sep", "end") or not isinstance(item.value, ast.Constant) or (
            not isinstance(item.value.value, str)
        ):
            return None  # file=, flush=, **kwargs: tf.print has no equivalent
    return Fix(f"Replace `print` with `{tf_alias}.print`",
               (Edit(module.span(call.func), f"{tf_alias}.print"),))


def _declared_outer(function: FunctionInfo) -> dict[str, str]:
    declared: dict[str, str] = {}
    for node in function.nodes.of(ast.Global, ast.Nonlocal):
        declared.update(dict.fromkeys(
            node.names, "global" if isinstance(node, ast.Global) else "nonlocal"))
    return declared


def _reads_only(node: ast.Call) -> bool:
    """`open(path)`, `open(path, "rb")`, `open(path, mode="r")`: a mode, written out, that
    neither writes, appends nor creates."""
    mode = node.args[1] if len(node.args) > 1 else keyword(node, "mode")
    if mode is None:
        return True
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and not (
        set(mode.value) & set("wax+"))


def _shadowed(module: ModuleContext, function: FunctionInfo, name: str) -> bool:
    """`name` is rebound in the function or an enclosing one (or, for the builtins `print`
    and `open`, at module level)."""
    if function.binds(name):
        return True
    if name not in ("print", "open"):
        return False
    return name in module.index.module_functions() or name in module_stores(module)


def _parameter_container(function: FunctionInfo, context: GraphContext,
                         receiver: ast.AST) -> str | None:
    """A parameter of a `tf.function` that the body writes into (`xs.append(x)`, `xs[0] =
    x`): the caller's list or dict, changed once per trace."""
    if context.kind is not ContextKind.TF_FUNCTION or not isinstance(receiver, ast.Name):
        return None
    name = receiver.id
    if name in ("self", "cls") or name not in function.parameter_names:
        return None
    if any(node.ctx.__class__ is ast.Store for node in function.nodes.named(name)):
        return None  # rebound in the body: a local from then on
    return name


def _outer_container(module: ModuleContext, function: FunctionInfo,
                     receiver: ast.AST) -> str | None:
    """The name of a list/dict/set bound outside `function` that `receiver` names."""
    if not isinstance(receiver, ast.Name):
        return None
    name = receiver.id
    if name in function.local_names:
        return None
    scope = function.outer
    while scope is not None:
        if name in scope.local_names:
            if module.graph.in_graph(scope) is not None:
                return None  # a local of the traced enclosing function: per trace anyway
            return name if name in _containers_in(module, scope.nodes) else None
        scope = scope.outer
    if name in module.imports.aliases:
        return None
    return name if name in _containers_in(module, module.index.module_nodes) else None


CONTAINERS: Shared[dict[int, set[str]]] = Shared("containers of a scope")


def _containers_in(module: ModuleContext, nodes: ScopeNodes) -> set[str]:
    """The names a scope binds to a list, dict or set (once per scope)."""
    tables = module.shared(CONTAINERS, dict)
    found = tables.get(id(nodes))
    if found is None:
        found = tables[id(nodes)] = set()
        for node in nodes.of(ast.Assign, ast.AnnAssign):
            if node.value is not None and _container_value(module, node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _container_value(module: ModuleContext, value: ast.AST) -> bool:
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp
                  | ast.SetComp):
        return True
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return isinstance(value.left, ast.List) or isinstance(value.right, ast.List)
    if isinstance(value, ast.Call):
        if isinstance(value.func, ast.Name) and value.func.id in CONTAINER_FACTORIES:
            return True
        return (module.qualname(value.func) or "") in CONTAINER_FACTORIES
    return False


def _bound_names(module: ModuleContext, test: Callable[[ast.expr], bool]) -> set[str]:
    """Module-level names assigned from a value for which `test(value)` is true."""
    found: set[str] = set()
    for node in module.index.module_nodes.of(ast.Assign):
        if test(node.value):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return found
