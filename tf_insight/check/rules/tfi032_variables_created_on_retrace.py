"""Variables first made in a later trace of a `tf.function`: a branch on a Python argument that
applies an optimizer, taken only after a first call that skipped it.

## What it does
Finds a `tf.function` whose body, under `if flag:` (or `if not flag:`) on one of its
parameters, applies an optimizer (`optimizer.apply_gradients(...)`, `optimizer.minimize(...)`)
or makes a `tf.Variable`, when the module's first call of the function passes a value of `flag`
that skips the branch and a later call one that takes it (`step(x, y, False)`, then
`step(x, y, True)`).

Also finds an update in a module-level `tf.function` of a module-level optimizer that a loop
makes anew on every iteration (`for stage in stages: optimizer = keras.optimizers.Adam(...)`)
while calling the function (a progressive GAN's stages, a hyper-parameter sweep): the next
stage's model or batch shape retraces the function, and the new optimizer makes its variables
in that later trace (TF 2.21: `ValueError: tf.function only supports singleton tf.Variables
created on the first call`).

Not reported: an optimizer built or applied outside graph code (`optimizer.build(...)`), calls
whose flag is not a literal, and calls made from several functions (which runs first is not in
the text).

## Why is this bad?
A Python argument is part of the trace: each new value traces the function again. A
`tf.function` may create variables only on its first call; an optimizer makes its variables (the
step count, the slots) the first time it applies gradients. When the first call skips the update
(an evaluation before training), the trace that takes it creates them on a later call and fails:
`ValueError: Creating variables on a non-first call to a function decorated with tf.function.`
(TF 2.21, Keras 3 and tf-keras alike; with the training call first, both run.)

## Example
```python
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()


@tf.function
def step(x, y, apply_update):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    if apply_update:
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x, y = tf.ones([8, 4]), tf.zeros([8, 1])
step(x, y, False)
step(x, y, True)
```

## Use instead
```python
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()
optimizer.build(model.trainable_variables)  # its variables exist before any trace


@tf.function
def step(x, y, apply_update):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    if apply_update:
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x, y = tf.ones([8, 4]), tf.zeros([8, 1])
step(x, y, False)
step(x, y, True)
```

## References
- [tf.function: creating tf.Variables](https://www.tensorflow.org/guide/function#creating_tfvariables)
- [Keras optimizers: build](https://keras.io/api/optimizers/)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import ContextKind
from tf_insight.check.index import MANY_BINDINGS, FunctionInfo
from tf_insight.check.rules import Hit, Reads
from tf_insight.check.rules._attributes import VARIABLES
from tf_insight.check.rules._tf_functions import call_arguments, enclosing_loops
from tf_insight.check.shared import Shared
from tf_insight.findings import Related, Severity

CODE = "TFI032"
NAME = "variables-created-on-retrace"
SEVERITY = Severity.ERROR
UPDATES = frozenset({"apply_gradients", "minimize"})
READS = Reads(calls=frozenset({"build", *UPDATES}))


def check(module: ModuleContext) -> Iterator[Hit]:
    if not module.mentions("apply_gradients", "minimize", "Variable"):
        return
    for function, context in module.graph.focused_functions():
        if context.kind is not ContextKind.TF_FUNCTION or function.cls is not None or isinstance(
                function.node, ast.Lambda):
            continue
        for flag, taken_when, creation in _flagged_creations(module, function):
            calls = _literal_calls(module, function, flag)
            if len(calls) < 2 or calls[0][1] == taken_when:
                continue
            later = next((call for call, value in calls[1:] if value == taken_when), None)
            if later is None:
                continue
            first = calls[0][0]
            made = module.source.segment(creation.func)
            yield Hit(
                creation,
                f"`{made}(...)` under `{flag}` makes variables in a later trace of "
                f"`{function.name}`: its first call passes `{flag}={not taken_when}`",
                related=(Related(module.path, module.span(first), "the first call skips it"),
                         Related(module.path, module.span(later), "this call traces it")),
                detail="a tf.function may create variables only on its first call, and each "
                f"value of `{flag}` is a new trace: this one fails with `ValueError: Creating "
                "variables on a non-first call to a function decorated with tf.function.`",
                help="make the variables before the first call (`optimizer.build("
                "model.trainable_variables)`), or call the branch that makes them first",
            )
        yield from _optimizer_made_per_iteration(module, function)


def _optimizer_made_per_iteration(module: ModuleContext, function: FunctionInfo
                                  ) -> Iterator[Hit]:
    """`optimizer.apply_gradients(...)` in the tf.function on a module-level optimizer that a
    module-level loop makes anew on every iteration, calling the function there too."""
    local = set(function.local_names) | set(function.parameter_names)
    runs = [call for call, scope in module.calls_named(function.name)
            if scope is None and module.function_named(call.func, scope) is function]
    for call in function.nodes.of(ast.Call):
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr in UPDATES and isinstance(
                func.value, ast.Name)) or func.value.id in local or _built_elsewhere(
                module, func.value.id):
            continue
        name = func.value.id
        for assign in module.index.module_nodes.assignments_to(name):
            value = getattr(assign, "value", None)
            loops = enclosing_loops(module, assign)
            if not (loops and isinstance(value, ast.Call)
                    and ".optimizers." in f".{module.qualname(value.func) or ''}"):
                continue
            step = next((run for run in runs if any(
                loop.node is loops[0].node for loop in enclosing_loops(module, run))), None)
            if step is None:
                continue
            yield Hit(
                call, f"`{name}` is a new optimizer made on every iteration of "
                f"`{loops[0].header(module)}`, which `{function.name}` applies: each new one "
                "makes its variables in a later trace",
                related=(Related(module.path, module.span(value), "a new optimizer is made here"),
                         Related(module.path, module.span(step), "the function runs here")),
                detail="a tf.function may create variables only on its first call: when the "
                "next iteration's model or shapes retrace it, the new optimizer's first "
                "`apply_gradients` fails with `ValueError: tf.function only supports singleton "
                "tf.Variables created on the first call`; when nothing retraces it, the step "
                "keeps applying the first optimizer",
                help="make a new tf.function for each stage (`step = tf.function(train_step)` "
                "inside the loop), or keep one optimizer and build it first",
            )
            break


def _flagged_creations(module: ModuleContext, function: FunctionInfo
                       ) -> Iterator[tuple[str, bool, ast.Call]]:
    """(parameter, the truth value that runs the branch, the creating call) for `if p:` /
    `if not p:` branches of `function` that apply an optimizer or make a variable."""
    parameters = set(function.parameter_names)
    for branch in function.nodes.of(ast.If):
        test, taken = branch.test, True
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, taken = test.operand, False
        if not (isinstance(test, ast.Name) and test.id in parameters):
            continue
        for statement in branch.body:
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and _creates(module, node):
                    yield test.id, taken, node
                    break


def _creates(module: ModuleContext, call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in UPDATES and isinstance(
            func.value, ast.Name):
        return not _built_elsewhere(module, func.value.id)
    return module.refers_to(func, VARIABLES)


BUILT_OPTIMIZERS: Shared[frozenset[str]] = Shared("built optimizers")


def _built_elsewhere(module: ModuleContext, optimizer: str) -> bool:
    """`optimizer.build(...)`, or an update of it outside a graph function, in the module."""
    def built() -> frozenset[str]:
        return frozenset(
            call.func.value.id for call, scope in module.calls_named("build", *UPDATES)
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
            and (call.func.attr == "build" or module.graph.in_graph(scope) is None))

    return optimizer in module.shared(BUILT_OPTIMIZERS, built)


def _literal_calls(module: ModuleContext, function: FunctionInfo, flag: str
                   ) -> list[tuple[ast.Call, bool]]:
    """The module's calls of `function`, in source order, with the truth of the literal they
    pass for `flag` (its default when they pass none); empty when one passes no literal, or
    when they are made from several functions (their order is then not the text's)."""
    found: list[tuple[ast.Call, bool]] = []
    named = module.calls_named(function.name)
    if len(named) > MANY_BINDINGS:
        return []  # each function of that name would scan them all
    calls = [(call, scope) for call, scope in named
             if module.function_named(call.func, scope) is function]
    if len({id(scope) for _, scope in calls}) > 1:
        return []  # calls in several functions: which runs first is not in the text
    for call, _scope in sorted(calls, key=lambda item: (item[0].lineno, item[0].col_offset)):
        given = next((argument for argument, parameter in call_arguments(call, function)
                      if parameter == flag), function.parameter_defaults.get(flag))
        if not isinstance(given, ast.Constant):
            return []
        found.append((call, bool(given.value)))
    return found
