"""Helpers shared by TFI003, TFI006, TFI007, TFI012, TFI013, TFI017 and TFI033 (not a rule).

- :class:`TensorFacts` answers "is this expression a tensor?" inside one graph function, with
  cheap, deliberately conservative heuristics (a false "no" costs a missed finding, a false
  "yes" costs a wrong one):
  - parameters that graph mode fills with tensors: the positional parameters without a default
    of a `tf.function` (with an `input_signature`, one per spec), of a Keras `call` (`inputs`,
    not `training=`/`mask=`), of a loss/metric (`y_true`, `y_pred`), of a `tf.data` function,
    and `train_step`'s `data` — less those annotated or documented as a Python scalar
    (`n: int`, `n (int): ...`), and a layer `call`'s parameters after its inputs that every
    application of the layer in the module gives a Python value (`Block(...)(x, seq_len=96)`);
    none in a function written for NumPy arrays (`total = y_true.size`: a tensor has no `size`).
    Parameters of helpers merely called from graph code are unknown, but for the function a
    graph function maps over tensors (`tf.map_fn(fn, elems)`, `vectorized_map`, `scan`,
    `foldl`/`foldr`), whose parameters get the elements (a tuple of tensors for a tuple);
  - results of TensorFlow ops (`tf.reduce_sum`, `tf.shape`, `tf.math.*`, `tensorflow.python.ops`
    modules) and of `keras.ops` / `keras.backend` ops — not of the APIs that return Python
    values (`tf.executing_eagerly`, `tf.is_tensor`, `tf.get_static_value`, `ops.shape`,
    `K.int_shape`, anything `is_*`/`get_*`, classes, `tf.config`, `tf.nest`, TF 1.x graph
    collections such as `tf.local_variables()`...), and not of
    multi-output ops taken as a whole (`tf.unstack`, `tf.split`, `tf.nn.moments`: those give
    Python lists/tuples; their elements are tensors);
  - local names assigned from any of these (not by a branch that returns before the use),
    arithmetic, comparisons and subscripts of tensors (`x.shape[0]`, `x.dtype`, `len(x)` are
    Python values, not tensors; `(a, b) + rest[1:]` joins tuples); the keys of a tf.data
    element's dict (`for key in example["groups"]`) are Python values too.
- where code cannot see a symbolic tensor (mode checks, type guards): :mod:`tf_insight.check.guards`.
- :func:`tested_tensors`: the tensors whose truth an `if`/`while`/`and`... test asks for (a bare
  parameter may be a list; `p is not None and` stops at a parameter no call gives:
  :func:`unpassed_parameters`).
- :func:`tensorflow_alias`: the name this module imports `tensorflow` as (for fixes);
  :func:`module_stores`: the names assigned at module level.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import PYTHON_SCALARS, ContextKind, GraphContext
from tf_insight.check.guards import guarded_nodes
from tf_insight.check.imports import keyword
from tf_insight.check.index import FunctionInfo, self_attribute
from tf_insight.check.rules._attributes import (
    attribute_stores,
    makes_keras_layer,
    variable_value,
)
from tf_insight.check.rules._tf_functions import call_arguments
from tf_insight.check.shared import Shared

# ---- which calls return a tensor ----------------------------------------------------------

_TF_NOT_TENSOR_MODULES = (
    "config", "distribute", "nest", "data", "summary", "saved_model", "train", "io.gfile",
    "test", "sysconfig", "errors", "autograph", "compat.v1", "debugging", "lookup", "types",
    "experimental", "tpu", "feature_column", "estimator", "version", "queue", "mlir", "lite",
    "profiler", "keras", "random.experimental", "python.framework", "python.util",
    "python.eager", "python.distribute", "python.keras", "python.platform", "python.data",
    "python.training", "python.saved_model", "python.trackable", "python.checkpoint",
    "tools", "dtypes",
)
_NOT_TENSOR_FUNCTIONS = frozenset({
    # TensorFlow functions that return Python values, structures or objects
    "executing_eagerly", "inside_function", "is_tensor", "is_symbolic_tensor",
    "get_static_value", "constant_value", "function", "name_scope", "init_scope", "device",
    "control_dependencies", "print", "as_dtype", "custom_gradient", "recompute_grad",
    "get_logger", "no_op", "group", "make_ndarray", "make_tensor_proto",
    "register_tensor_conversion_function", "gradients", "broadcast_static_shape",
    "type_spec_from_value", "while_loop", "tuple", "identity_n", "set_seed",
    "get_global_generator", "constant_initializer", "ones_initializer", "zeros_initializer",
    "random_normal_initializer", "random_uniform_initializer", "variable_creator_scope",
    "numpy_function", "py_function", "vectorized_map", "switch_case", "cond", "case",
    "map_fn", "scan", "foldl", "foldr", "get_shape", "shape_n", "flatten", "pack_sequence_as",
    "dimension_value", "dimension_at_index",
    # TF 1.x graph collections: Python lists of variables
    "global_variables", "local_variables", "trainable_variables", "model_variables",
    "all_variables", "moving_average_variables", "get_collection", "get_collection_ref",
})
_KERAS_NOT_TENSOR = frozenset({
    # Keras functions that return Python values (`ops.shape` is a tuple of ints)
    "shape", "ndim", "dtype", "int_shape", "floatx", "epsilon", "image_data_format",
    "standardize_dtype", "convert_to_numpy", "result_type", "learning_phase", "backend",
    "count_params", "get_uid", "batch_get_value", "set_value", "rnn", "map", "is_keras_tensor",
    "name", "device_scope", "custom_gradient", "core", "KerasTensor", "in_symbolic_scope",
    "in_stateless_scope", "any_symbolic_tensors", "global_state", "config", "standardize_shape",
    "random_seed_dtype",
})
# Ops that call a function on tensors: how many of its parameters get them (element, or
# accumulator and element)
_MAPPING_OPS = {"map_fn": 1, "vectorized_map": 1, "scan": 2, "foldl": 2, "foldr": 2}
# Ops that return a list/tuple of tensors: unpack or subscript them to get tensors.
MULTI_OUTPUT = frozenset({
    "unstack", "split", "meshgrid", "unique", "unique_with_counts", "dynamic_partition",
    "moments", "weighted_moments", "top_k", "eigh", "eig", "svd", "qr", "slogdet",
    "fused_batch_norm", "ctc_greedy_decoder", "ctc_beam_search_decoder", "lu", "normalize",
    "sufficient_statistics", "compute_average_loss", "batch_all_reduce", "bincount_with_weights",
})


@functools.lru_cache(maxsize=4096)
def _op_name(qualname: str) -> tuple[str, str] | None:
    """('tf'|'keras', function name) for a TensorFlow or Keras op call, else None."""
    parts = qualname.split(".")
    last = parts[-1]
    if not last or not last[0].islower() or last.startswith(("get_", "set_", "in_")):
        return None
    if parts[0] == "keras" and last.startswith(("is_", "has_", "standardize")):
        return None  # keras predicates return Python bools (tf.math.is_nan is an op)
    if any(part[:1].isupper() for part in parts[:-1]):
        return None  # class attributes: tf.TensorShape(...).x, tf.RaggedTensor.from_*
    if parts[0] == "tensorflow":
        rest = ".".join(parts[1:-1])
        if any(rest == m or rest.startswith(m + ".") for m in _TF_NOT_TENSOR_MODULES) and not (
            rest == "dtypes" and last in ("cast", "saturate_cast", "complex")
        ):
            return None
        if rest.startswith("python.") and not rest.startswith("python.ops"):
            return None
        return ("tf", last)
    if parts[0] == "keras":
        inner = parts[2:] if len(parts) > 2 and parts[1] == "src" else parts[1:]
        if len(inner) > 2 and inner[0] == "ops" and inner[1] not in (
            "numpy", "math", "nn", "core", "linalg", "image"
        ):
            return None  # keras.src.ops.operation_utils & co: Python helpers
        if inner and inner[0] in ("ops", "backend", "activations") and len(inner) >= 2:
            if inner[0] == "backend" and len(inner) > 2 and inner[1] not in (
                "numpy", "math", "nn", "linalg", "image", "core", "random"
            ):
                return None
            return ("keras", last)
    return None


def asks_value(node: ast.AST) -> bool:
    """`x.numpy()`: a tensor asked for its value (which a symbolic tensor has not)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "numpy" and not node.args and not node.keywords)


def tensor_op(module: ModuleContext, call: ast.Call) -> str | None:
    """The op name when `call` is a TensorFlow/Keras op that returns one tensor, else None."""
    qualname = module.qualname(call.func)
    if qualname is None:
        return None
    found = _op_name(qualname)
    if found is None or found[1] in _NOT_TENSOR_FUNCTIONS or found[1] in MULTI_OUTPUT:
        return None
    if found[0] == "keras" and found[1] in _KERAS_NOT_TENSOR:
        return None
    return found[1]


def multi_output_op(module: ModuleContext, call: ast.Call) -> bool:
    qualname = module.qualname(call.func)
    found = _op_name(qualname) if qualname else None
    return found is not None and found[1] in MULTI_OUTPUT


# ---- tensor-valued expressions in one graph function ----------------------------------------

_FLAG_PARAMETERS = frozenset({"self", "cls", "training", "mask", "sample_weight"})
# Parameter names that usually carry Python values (sizes, counts, flags, callables)
_PYTHON_PARAMETER = re.compile(
    r"^(n|k|num_\w+|n_\w+|\w+_size|size|steps?|epochs?|axis|axes|dims?|rank|depth|units|"
    r"verbose|debug|mode|name|\w+_fn|fn|func|callback|flag|is_\w+|use_\w+|seed|shape|"
    r"\w+_shape|config|\w+_config|\w+_name|return_\w+)$"
)
_PYTHON_CONTAINERS = frozenset({"List", "list", "Tuple", "tuple", "Sequence", "Set", "set",
                                "FrozenSet", "frozenset", "Iterable", "Dict", "dict", "Mapping"})
# a parameter's type in a docstring: `n (int): ...` (Google), `n : int` (NumPy), `n: int`,
# `:param int n:`, `:type n: int` (Sphinx); group 1 the name, group 2 the type
_DOCUMENTED_TYPE = re.compile(
    r"^[ \t]*(\w+)[ \t]*(?:\(([^()\n]*)\)|:[ \t]*([^\n]*))|:param[ \t]+(\w+)[ \t]+(\w+):"
    r"|:type[ \t]+(\w+):[ \t]*([^\n]*)", re.M)
_STRING_CHOICE = re.compile(r"""^(?:one of|either)?[ \t{\[(]*(['"])\w+\1""")
_NON_TENSOR_ATTRIBUTES = frozenset({
    "shape", "dtype", "ndim", "name", "device", "graph", "op", "rank", "__class__",
})


def _python_annotation(annotation: ast.expr | None) -> bool:
    """`int`, `str`, or a container of them (`List[str]`, `tuple[int, ...]`)."""
    if isinstance(annotation, ast.Name):
        return annotation.id in PYTHON_SCALARS
    if not (isinstance(annotation, ast.Subscript)
            and isinstance(annotation.value, ast.Name | ast.Attribute)):
        return False
    container = annotation.value
    name = container.id if isinstance(container, ast.Name) else container.attr
    items = (annotation.slice.elts if isinstance(annotation.slice, ast.Tuple)
             else [annotation.slice])
    return name in _PYTHON_CONTAINERS and all(
        _python_annotation(item) or (isinstance(item, ast.Constant) and item.value is ...)
        for item in items)


def _python_typed(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The parameters annotated or documented as a Python scalar (`dft_length: int`, or a
    container of them, `keys: List[str]`,
    `dft_length (int) - DFT length`, or a choice of strings, `mode : one of 'dna', 'rna'`):
    a graph function given one is given a Python value,
    not a tensor (a type that names a tensor or an array too, `int or Tensor`, is not)."""
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    found = {a.arg for a in arguments if _python_annotation(a.annotation)}
    docstring = None if isinstance(node, ast.Lambda) else ast.get_docstring(node)
    if docstring:
        names = {a.arg for a in arguments}
        for match in _DOCUMENTED_TYPE.finditer(docstring):
            name = match[1] or match[4] or match[6]
            kind = match[2] or match[3] or match[5] or match[7] or ""
            words = re.findall(r"\w+", kind.split(",")[0])
            # `alphabet : one of 'dna', 'rna'`, `{"mean", "sum"}`: string choices
            chosen = _STRING_CHOICE.match(kind) is not None
            if name in names and words and (words[0] in PYTHON_SCALARS or chosen) and not any(
                    word.lower() in ("tensor", "array", "ndarray") for word in words):
                found.add(name)
    return found


def python_valued_by_appliers(module: ModuleContext, call: FunctionInfo) -> set[str]:
    """The parameters of a layer's `call` after its inputs that every application of the layer
    the module makes gives a Python value (`Block(...)(x, seq_len=96)`, or a caller's own
    parameter defaulting to one): Keras hands such values to `call` as they are, not as
    tensors. None of them when the module makes no layer of the class, or one it does not
    follow (passed on, kept in a list): its applications are out of view."""
    if call.cls is None or isinstance(call.node, ast.Lambda):
        return set()
    names = [a.arg for a in [*call.node.args.posonlyargs, *call.node.args.args]][1:]
    applications = _applications(module, call.cls.name)
    if not applications or len(names) < 2:
        return set()
    python = set(names[1:])
    for application, scope in applications:
        given: dict[str, ast.expr] = {}
        for position, argument in enumerate(application.args):
            if isinstance(argument, ast.Starred):
                return set()
            if position < len(names):
                given[names[position]] = argument
        for item in application.keywords:
            if item.arg is None:
                return set()
            given[item.arg] = item.value
        python = {name for name in python
                  if name in given and _given_python_value(given[name], scope)}
    return python


def python_valued_by_callers(module: ModuleContext, function: FunctionInfo) -> set[str]:
    """The parameters of a module-level `tf.function` that every call of it in the module gives
    a Python value (`positional_encoding(max_length, self.d_model)` in a layer's `__init__`,
    from its hyperparameters): it is traced with them as they are, not as tensors
    (bench/precision/checks/tf_function_given_python_ints.py). None when the module does not
    call it, or passes anything through `*`/`**`."""
    if function.cls is not None or function.outer is not None or isinstance(
            function.node, ast.Lambda):
        return set()
    calls = module.calls_of(function)
    names = [a.arg for a in [*function.node.args.posonlyargs, *function.node.args.args]]
    python = set(names) if calls else set()
    for call, scope in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return set()
        given = {parameter: argument for argument, parameter in call_arguments(call, function)}
        python = {name for name in python
                  if name in given and _hyperparameter(module, given[name], scope)}
    return python


def _hyperparameter(module: ModuleContext, node: ast.expr, scope: FunctionInfo | None) -> bool:
    """A Python value (`_given_python_value`), a parameter of a constructor (`__init__`: a
    layer's or model's hyperparameters), or an attribute that the class sets only in its
    constructor, from such values (`self.d_model = d_model`)."""
    if _given_python_value(node, scope):
        return True
    if isinstance(node, ast.BinOp):  # `self.seq_len = p_len + f_len`
        return _hyperparameter(module, node.left, scope) and _hyperparameter(
            module, node.right, scope)
    if isinstance(node, ast.Name):
        return scope is not None and scope.name == "__init__" and scope.cls is not None and (
            node.id in scope.parameter_names and not scope.nodes.assignments_to(node.id))
    name = self_attribute(node)
    if name is None or scope is None or scope.cls is None:
        return False
    stores = attribute_stores(module, scope.cls).get(name, [])
    return bool(stores) and all(
        store.method.name == "__init__" and store.value is not None
        and not isinstance(store.value, ast.Attribute)  # no chain of attributes
        and _hyperparameter(module, store.value, store.method) for store in stores)


def _applications(module: ModuleContext, class_name: str
                  ) -> list[tuple[ast.Call, FunctionInfo | None]] | None:
    """The calls that apply layers of the class: `Block(...)(x)`, or `block = Block(...)` then
    `block(x)` in the same scope; None if a layer of it goes anywhere else."""
    found: list[tuple[ast.Call, FunctionInfo | None]] = []
    for made, scope in module.calls_named(class_name):
        if isinstance(made.func, ast.Call):
            continue  # `Block(...)(x)` itself: its inner call is the one that makes it
        parent = module.index.parent(made)
        if isinstance(parent, ast.Call) and parent.func is made:
            found.append((parent, scope))
            continue
        if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1
                and isinstance(parent.targets[0], ast.Name)):
            return None
        nodes = scope.nodes if scope is not None else module.index.module_nodes
        for use in nodes.named(parent.targets[0].id):
            if use is parent.targets[0]:
                continue
            applied = module.index.parent(use)
            if not (isinstance(applied, ast.Call) and applied.func is use):
                return None
            found.append((applied, scope))
    return found


def _given_python_value(node: ast.expr, scope: FunctionInfo | None) -> bool:
    """A Python value written out (`_python_value`), arithmetic on such values, or a parameter
    of the caller that defaults to one and is never reassigned."""
    if isinstance(node, ast.UnaryOp):
        return _given_python_value(node.operand, scope)
    if isinstance(node, ast.BinOp):
        return _given_python_value(node.left, scope) and _given_python_value(node.right, scope)
    if isinstance(node, ast.Name) and scope is not None:
        default = scope.parameter_defaults.get(node.id)
        return default is not None and not scope.nodes.assignments_to(node.id) \
            and _python_value(default)
    return _python_value(node)


# Attributes a NumPy array (or pandas object) has and a `tf.Tensor` has not (TF 2.21: a tensor,
# eager or symbolic, has `ndim`, `dtype` and `shape` of these names only)
_ARRAY_ONLY_ATTRIBUTES = frozenset({
    "size", "astype", "tolist", "flatten", "ravel", "item", "nbytes", "itemsize",
})


def written_for_arrays(function: FunctionInfo) -> bool:
    """Whether the function reads an attribute of a parameter that only NumPy arrays have
    (`total = y_true.size`, `x.astype("float32")`): it is written to be given arrays, and a
    tensor would fail there first, so its guessed tensor parameters are arrays too (a
    metric's `y_pred` with its `y_true`). Only where the parameter still holds what the caller
    gave (`x = np.asarray(x)` before `x.size` reads the conversion's array)."""
    parameters = set(function.parameter_names)
    return any(node.attr in _ARRAY_ONLY_ATTRIBUTES and isinstance(node.value, ast.Name)
               and node.value.id in parameters
               and all(_at(node) < _at(store) for store in function.nodes.named(node.value.id)
                       if isinstance(store.ctx, ast.Store))
               for node in function.nodes.of(ast.Attribute))


class TensorFacts:
    """Which names and expressions of one graph function hold tensors (see module doc)."""

    def __init__(self, module: ModuleContext, function: FunctionInfo,
                 context: GraphContext, depth: int = 0) -> None:
        self.module = module
        self.function = function
        self.context = context
        self.names: set[str] = set(self._tensor_parameters())
        # parameters whose tensor-ness is a guess (`inputs` may be a list of tensors)
        self.parameters: set[str] = set() if (
            context.kind is ContextKind.DATASET or context.input_signature
        ) else set(self.names)
        if context.kind is ContextKind.CALLED and depth < 3:
            self._parameters_from_callers(depth)
            mapped = self._mapped_parameters()
            self.names |= mapped
            self.parameters |= mapped  # an element may be a tuple or dict of tensors
        if written_for_arrays(function):
            self.names -= self.parameters
            self.parameters = set()
        self.containers: set[str] = set()  # names of lists/tuples of tensors
        if context.kind is ContextKind.KERAS_STEP:
            self.containers |= self.names
            self.names.clear()
        # name -> (where, "tensor" | "container" | "other", the target) of each assignment,
        # sorted
        self._bindings: dict[str, list[tuple[tuple[int, int], str, ast.Name]]] = {}
        self._propagate()

    def _tensor_parameters(self) -> list[str]:
        node = self.function.node
        kind = self.context.kind
        if kind is ContextKind.CALLED:
            return []
        positional = [*node.args.posonlyargs, *node.args.args]
        if self.function.cls is not None and positional:
            positional = positional[1:]  # self
        if self.context.one_input:
            chosen = positional[:1]
        elif kind is ContextKind.TF_FUNCTION and self.context.input_signature:
            # `input_signature=[spec]` fills the first parameter; the rest keep their defaults
            chosen = positional[:_signature_length(self.module, self.function)]
        else:
            required = len(positional) - len(node.args.defaults)
            chosen = positional[:required]
        if kind is ContextKind.DATASET or self.context.input_signature:
            return [a.arg for a in chosen if a.arg not in _FLAG_PARAMETERS]
        typed = _python_typed(node)
        if kind is ContextKind.KERAS_CALL:
            typed |= python_valued_by_appliers(self.module, self.function)
        elif kind is ContextKind.TF_FUNCTION:
            typed |= python_valued_by_callers(self.module, self.function)
        return [a.arg for a in chosen if a.arg not in _FLAG_PARAMETERS
                and not _PYTHON_PARAMETER.match(a.arg) and a.arg not in typed]

    def _parameters_from_callers(self, depth: int) -> None:
        """A helper called from graph code: its parameters are tensors where the caller (same
        module) passes a tensor — `preprocess(tf.cast(x, tf.float32))`, `Clip(samples)` (its
        `__init__`), `clip(x)` (the `__call__` of the object `clip`)."""
        caller_name = self.context.caller
        if caller_name is None:
            return
        for caller, caller_context in graph_functions_named(self.module, caller_name):
            caller_facts = tensor_facts(self.module, caller, caller_context, depth + 1)
            node = self.function.node
            positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
            eager = guarded_nodes(self.module, caller)
            for call in caller.calls:
                if call in eager or (
                    self.module.graph.called_function(call.func, caller) is not self.function
                ):
                    continue
                # `self.f(x)`, `Clip(x)`, `clip(x)`: the call passes the method's `self`
                offset = 1 if self.function.cls is not None and positional[:1] in (
                    ["self"], ["cls"]) else 0
                pairs = [(positional[i + offset], arg) for i, arg in enumerate(call.args)
                         if i + offset < len(positional) and not isinstance(arg, ast.Starred)]
                pairs += [(k.arg, k.value) for k in call.keywords if k.arg in positional]
                for name, arg in pairs:
                    if name in _FLAG_PARAMETERS or not caller_facts.is_tensor(arg):
                        continue
                    self.names.add(name)
                    if caller_facts.rooted_in_parameter(arg):
                        self.parameters.add(name)
            return

    def _mapped_parameters(self) -> set[str]:
        """`tf.map_fn(conv_one, (images, strides))` in graph code: `conv_one`'s positional
        parameters get the elements, tensors (`scan`'s and the folds' accumulator too)."""
        node = self.function.node
        positional = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
        if self.function.cls is not None and positional[:1] in (["self"], ["cls"]):
            positional = positional[1:]  # `tf.map_fn(self.shuffle_one, x)`
        for call, scope in self.module.calls_named(*_MAPPING_OPS):
            module, _, op = (self.module.qualname(call.func) or "").rpartition(".")
            mapped = call.args[0] if call.args else keyword(call, "fn")
            if module == "tensorflow" and op in _MAPPING_OPS and mapped is not None \
                    and self.module.function_named(mapped, scope) is self.function:
                return set(positional[:_MAPPING_OPS[op]])
        return set()

    def _propagate(self) -> None:
        """What each assignment makes of its targets, in source order: a name is what its
        last assignment *before* a use made it (a reassignment later in a loop body does not
        change an earlier use), or, before any, what the parameters say."""
        assigned: list[tuple[tuple[int, int], ast.AST, ast.AST]] = []  # (where, target, value)
        guarded = guarded_nodes(self.module, self.function)  # never runs on symbolic tensors
        for node in self.function.nodes.of(
                ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.comprehension):
            if node in guarded:
                continue
            if isinstance(node, ast.Assign):
                assigned.extend((_after(node), target, node.value) for target in node.targets)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                assigned.append((_after(node), node.target, node.value))
            elif isinstance(node, ast.For):
                assigned.append((_at(node.target), node.target, _Element(node.iter)))
            elif isinstance(node, ast.comprehension):
                comprehension = self.module.index.parent(node) or node.target
                assigned.append((_at(comprehension), node.target, _Element(node.iter)))
        assigned.sort(key=lambda item: item[0])
        for where, target, value in assigned:
            self._bind(where, target, value)

    def _bind(self, where: tuple[int, int], target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self._record(target, where, self._kind(value, where))
            if self.rooted_in_parameter(value.iterable if isinstance(value, _Element) else value):
                # `features = inputs[0]`, `for element in dataset`: maybe a list or a tuple too
                self.parameters.add(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
                for item, item_value in zip(target.elts, value.elts, strict=True):
                    self._bind(where, item, item_value)
                return
            unpacked = not isinstance(value, _Element) and self._kind(value, where) in (
                "tensor", "container")
            for item in target.elts:
                if isinstance(item, ast.Name):
                    self._record(item, where, "tensor" if unpacked else "other")
                    if unpacked and self.rooted_in_parameter(value):
                        self.parameters.add(item.id)  # `a, b = inputs`: maybe a list or dict

    def _record(self, target: ast.Name, where: tuple[int, int], kind: str) -> None:
        self._bindings.setdefault(target.id, []).append((where, kind, target))

    def _kind(self, value: ast.AST, where: tuple[int, int]) -> str:
        if isinstance(value, _Element):
            iterable = value.iterable
            if self.structure_parameter(iterable):
                return "other"  # `for key in data["by_shell"]`: a dict's keys, maybe
            return "tensor" if (self._is_container(iterable, where)
                                or self._is_tensor(iterable, where)) else "other"
        if _python_value(value):
            return "other"
        if self._is_tensor(value, where):
            return "tensor"
        return "container" if self._is_container(value, where) else "other"

    def _kind_at(self, name: ast.Name, where: tuple[int, int]) -> str | None:
        """What the last assignment before `where` made of the name, leaving out assignments
        in the other branch of an if/else that the use is in, and in a branch that returns
        before the use (they never reach it)."""
        entries = self._bindings.get(name.id, [])
        index = self.module.index
        for position in range(bisect.bisect_left(entries, (where, "")) - 1, -1, -1):
            _, kind, target = entries[position]
            if not (index.exclusive(target, name, tries=False)
                    or index.left_before(target, name)):
                return kind
        if name.id in self.names:
            return "tensor"
        return "container" if name.id in self.containers else None

    def _is_container(self, node: ast.AST, where: tuple[int, int]) -> bool:
        """A list/tuple of tensors (a multi-output op, `train_step`'s `data`)."""
        if isinstance(node, ast.Name):
            return self._kind_at(node, where) == "container"
        if isinstance(node, ast.Call):
            return multi_output_op(self.module, node)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            return self._is_container(node.value, where)
        return False

    def is_tensor(self, node: ast.AST) -> bool:
        return self._is_tensor(node, _at(node))

    def _is_tensor(self, node: ast.AST, where: tuple[int, int]) -> bool:
        if isinstance(node, ast.Name):
            return self._kind_at(node, where) == "tensor"
        if isinstance(node, ast.Call):
            return tensor_op(self.module, node) is not None or self._sublayer_call(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.left, ast.Constant | ast.JoinedStr) and isinstance(
                node.left.value if isinstance(node.left, ast.Constant) else "", str
            ):
                return False  # "%s" % x
            if isinstance(node.op, ast.Add) and ast.Tuple in (type(node.left), type(node.right)):
                return False  # `(a, b) + rest[2:]`: tuples joined
            return self._is_tensor(node.left, where) or self._is_tensor(node.right, where)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, ast.Not) and self._is_tensor(node.operand, where)
        if isinstance(node, ast.Compare):
            return self._tensor_comparison(node, where)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                # a slice of a tensor is a tensor; of a list (a multi-output op's, or a
                # parameter that may be one: `inputs[2:]`), a list
                return self._is_tensor(node.value, where) and not self.rooted_in_parameter(
                    node.value)
            return self._is_tensor(node.value, where) or self._is_container(node.value, where)
        if isinstance(node, ast.IfExp):
            return self._is_tensor(node.body, where) or self._is_tensor(node.orelse, where)
        if isinstance(node, ast.NamedExpr):
            return self._is_tensor(node.value, where)
        if isinstance(node, ast.Attribute):
            return self._self_variable(node)
        return False

    def _self_variable(self, node: ast.Attribute) -> bool:
        """`self.bias` where the class makes `self.bias` a variable (`add_weight`,
        `tf.Variable`): a tensor wherever it is read."""
        name = self_attribute(node)
        cls = self.function.cls
        if name is None or cls is None:
            return False
        return any(variable_value(self.module, store.value)
                   for store in attribute_stores(self.module, cls).get(name, []))

    def _sublayer_call(self, call: ast.Call) -> bool:
        """`self.dense(x)` in a Keras class whose `self.dense` is a layer: a tensor."""
        name = self_attribute(call.func)
        cls = self.function.cls
        if name is None or cls is None or self.module.keras_kind(cls) is None:
            return False
        return any(makes_keras_layer(self.module, store.value)
                   for store in attribute_stores(self.module, cls).get(name, []))

    def tensor_comparison(self, node: ast.Compare) -> bool:
        return self._tensor_comparison(node, _at(node))

    def _tensor_comparison(self, node: ast.Compare, where: tuple[int, int]) -> bool:
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if isinstance(op, ast.Is | ast.IsNot | ast.In | ast.NotIn):
                continue
            if _is_none(left) or _is_none(right):
                continue
            if self._is_tensor(left, where) or self._is_tensor(right, where):
                return True
        return False

    def structure_parameter(self, node: ast.AST) -> bool:
        """A parameter the function reads as a dict (`data["dmri"]`, `data[key]["dmri"]`, `for
        key in data: data[key]`), or one of its fields (`data["by_shell"]`, which may be a dict
        too): a tf.data element's structure, whose iteration gives keys."""
        if isinstance(node, ast.Subscript) and _string_key(node):
            node = node.value
        if not (isinstance(node, ast.Name) and node.id in self.names):
            return False
        keys = {loop.target.id for loop in self.function.nodes.of(ast.For, ast.comprehension)
                if isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Name)
                and loop.iter.id == node.id}  # `for key in data: data[key]`
        return any((_string_key(n) and _root_name(n.value) == node.id) or (
            isinstance(n.value, ast.Name) and n.value.id == node.id
            and isinstance(n.slice, ast.Name) and n.slice.id in keys)
            for n in self.function.nodes.of(ast.Subscript))

    def through_parameters_only(self, node: ast.AST) -> bool:
        """A tensor only because a parameter is taken for one (`range(ndims)`): no op in it
        makes a tensor, and its tensor names are parameters not rebound before it. A caller
        may pass a Python value there, which a tf.function keeps as one."""
        where = _at(node)
        for part in ast.walk(node):
            if isinstance(part, ast.Call) and tensor_op(self.module, part) is not None:
                return False
            if isinstance(part, ast.Name) and self._kind_at(part, where) == "tensor" and (
                    part.id not in self.names or any(
                        at < where for at, _, _ in self._bindings.get(part.id, []))):
                return False
        return True

    def rooted_in_parameter(self, node: ast.AST) -> bool:
        """`inputs`, `inputs[0]`: a parameter that may be a list rather than a tensor."""
        return _root_name(node) in self.parameters

    def label(self, node: ast.AST) -> str:
        return self.module.source.segment(node) or "<expression>"


GRAPH_FUNCTIONS_BY_QUALNAME: Shared[dict[str, list[tuple[FunctionInfo, GraphContext]]]] = Shared("graph functions by qualname")


def _not_none_test_of(test: ast.AST) -> str | None:
    """`p` for `p is not None`."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
            test.ops[0], ast.IsNot) and isinstance(test.left, ast.Name) and isinstance(
            test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left.id
    return None


def unpassed_parameters(module: ModuleContext, function: FunctionInfo) -> frozenset[str]:
    """The parameters defaulting to None that no call of `function` in the module gives (when
    the module calls it at all, and never with `*args`/`**kwargs`): `clamp(x, max=m)` never
    gives `min`."""
    if isinstance(function.node, ast.Lambda) or function.cls is not None:
        return frozenset()
    left = {name for name, default in function.parameter_defaults.items()
            if isinstance(default, ast.Constant) and default.value is None}
    calls = [call for call, _scope in module.calls_of(function)]
    if not left or not calls:
        return frozenset()
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            return frozenset()
        left -= {parameter for _argument, parameter in call_arguments(call, function)}
    return frozenset(left)


def tested_tensors(facts: TensorFacts, node: ast.AST, iteration: bool,
                    unpassed: frozenset[str] = frozenset()) -> Iterator[ast.AST]:
    """The tensor-valued expressions whose truth (or iteration) `node` asks for (`unpassed`:
    parameters no call gives, None: after `p is not None and`, the rest never runs)."""
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from tested_tensors(facts, value, iteration, unpassed)
            if isinstance(node.op, ast.And) and _not_none_test_of(value) in unpassed:
                return
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield from tested_tensors(facts, node.operand, iteration, unpassed)
        return
    if isinstance(node, ast.Name | ast.Subscript) and facts.rooted_in_parameter(node):
        return  # `if inputs:` / `for x in inputs:` — may be a Python list
    if facts.is_tensor(node):
        yield node


def graph_functions_named(module: ModuleContext, qualname: str,
                           ) -> list[tuple[FunctionInfo, GraphContext]]:
    def by_qualname() -> dict[str, list[tuple[FunctionInfo, GraphContext]]]:
        found: dict[str, list[tuple[FunctionInfo, GraphContext]]] = {}
        for function, context in module.graph.functions():
            found.setdefault(function.qualname, []).append((function, context))
        return found

    return module.shared(GRAPH_FUNCTIONS_BY_QUALNAME, by_qualname).get(qualname, [])


TENSOR_FACTS: Shared[dict[tuple[FunctionInfo, int], TensorFacts]] = Shared("tensor facts")


def tensor_facts(module: ModuleContext, function: FunctionInfo, context: GraphContext,
                 depth: int = 0) -> TensorFacts:
    """The TensorFacts of a graph function, made once per module (several rules ask)."""
    made = module.shared(TENSOR_FACTS, dict)
    key = (function, depth)
    if key not in made:
        made[key] = TensorFacts(module, function, context, depth)
    return made[key]


def _at(node: ast.AST) -> tuple[int, int]:
    """Where a node starts, for source order."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _after(node: ast.AST) -> tuple[int, int]:
    """Where a statement ends: its targets are bound after its value is computed."""
    line: int = getattr(node, "end_lineno", None) or getattr(node, "lineno", 0) or 0
    column: int = getattr(node, "end_col_offset", None) or 0
    return (line, column)


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _string_key(node: ast.AST) -> bool:
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str))


class _Element(ast.AST):
    """An element of an iterable (loop and comprehension targets)."""

    def __init__(self, iterable: ast.AST) -> None:
        super().__init__()
        self.iterable = iterable


_PYTHON_BUILTINS = frozenset({"tuple", "list", "dict", "set", "len", "int", "float", "str",
                              "range", "sorted", "bool", "isinstance", "getattr"})


def _python_value(node: ast.AST) -> bool:
    """Definitely a Python value, never a tensor: literals, displays, `len()`, `tuple()`..."""
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.List | ast.Tuple | ast.Dict | ast.Set | ast.ListComp | ast.DictComp
                  | ast.SetComp | ast.GeneratorExp | ast.JoinedStr):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _PYTHON_BUILTINS
    return isinstance(node, ast.Attribute) and node.attr in _NON_TENSOR_ATTRIBUTES


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def tensorflow_alias(module: ModuleContext) -> str | None:
    """The local name bound to the `tensorflow` module (`tf`), if the module imports it."""
    for name, target in module.imports.aliases.items():
        if target in ("tensorflow", "tensorflow.compat.v2"):
            return name
    return None


MODULE_STORES: Shared[set[str]] = Shared("module stores")


def module_stores(module: ModuleContext) -> set[str]:
    """Names assigned at module level, class bodies included (once per module: rules ask
    about many names)."""
    return module.shared(MODULE_STORES, lambda: {
        node.id for node in module.index.module_nodes.of(ast.Name)
        if node.ctx.__class__ is ast.Store})


def context_label(function: FunctionInfo, context: GraphContext) -> str:
    """`Probe.call` (keras-call) — for messages."""
    return f"`{function.qualname}` ({context.kind.value})"


def _signature_length(module: ModuleContext, function: FunctionInfo) -> int | None:
    """How many specs a literal `input_signature` of the function's `@tf.function(...)` has
    (None: not written as a list or tuple)."""
    for decorator in function.decorators:
        if isinstance(decorator, ast.Call) and module.is_tf_function(decorator.func):
            for keyword in decorator.keywords:
                if keyword.arg == "input_signature" and isinstance(
                        keyword.value, ast.List | ast.Tuple):
                    return len(keyword.value.elts)
    return None
