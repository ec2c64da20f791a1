"""Hooks: library functions wrapped where every call counts (tf.function calls and traces,
layer runs, the traceback filters) or where the tracer must be off (AutoGraph's transpiler,
gradients, optimizer updates).

Each is wrapped as its module is imported (`Installer`, a `sys.meta_path` finder that finds
nothing itself), or at once if it already is. A hook costs one Python call where a logpoint
needs the debugger's tracer on every call of the run; hooks record only while the script
runs, as logpoints do. Standard library only.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

from . import introspect
from .annotations import Annotator
from .counters import Counters, FunctionKey
from .messages import Event
from .tracer import TracerSwitch

Wrapper = Callable[..., Any]

# Hooked functions, by module: (class or None, attribute, probe). Wrapped as each is imported.
HOOKS: dict[str, tuple[tuple[str | None, str, str], ...]] = {
    "tensorflow.python.eager.polymorphic_function.polymorphic_function": (
        ("Function", "__call__", "tf.function.call"),),
    "tensorflow.python.eager.polymorphic_function.tracing_compilation": (
        (None, "_create_concrete_function", "tf.function.trace"),),
    "keras.src.layers.layer": (("Layer", "__call__", "keras.Layer.__call__"),),
    "tf_keras.src.engine.base_layer": (("Layer", "__call__", "keras.Layer.__call__"),),
    "keras.src.utils.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tf_keras.src.utils.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tensorflow.python.util.traceback_utils": (
        (None, "_process_traceback_frames", "exception.unfiltered"),),
    "tensorflow.python.autograph.impl.api": ((None, "_convert_actual", "autograph.transpile"),),
    "tensorflow.python.eager.backprop": (("GradientTape", "gradient", "tape.gradient"),),
    "keras.src.optimizers.base_optimizer": (
        ("BaseOptimizer", "apply_gradients", "optimizer.apply_gradients"),),
    "tf_keras.src.optimizers.optimizer": (
        ("Optimizer", "apply_gradients", "optimizer.apply_gradients"),),
    "tf_keras.src.optimizers.legacy.optimizer_v2": (
        ("OptimizerV2", "apply_gradients", "optimizer.apply_gradients"),),
}


class Hooks:
    """The session's hooks: what each wrapper does, with the session's counters, annotator
    and tracer switch. `running` is set when the script starts."""

    def __init__(self, send: Callable[[Event], None], annotator: Annotator,
                 counters: Counters, tracer: TracerSwitch) -> None:
        self._send = send
        self._annotator = annotator
        self._counters = counters
        self._tracer = tracer
        self.running = False
        self._quiet_traces: set[FunctionKey] = set()  # functions whose last trace found no news
        # Per thread: how many traces raised (a call whose trace raised ran no graph).
        self._local = threading.local()
        self._makers: dict[str, Callable[[Wrapper], Wrapper]] = {
            "tf.function.call": self._function_call,
            "tf.function.trace": self._trace,
            "keras.Layer.__call__": self._layer_call,
            "exception.unfiltered": self._unfiltered,
            "autograph.transpile": self._untraced,
            "tape.gradient": self._gradient,
            "optimizer.apply_gradients": self._untraced,
        }

    def install_print(self) -> None:
        """Wrap the builtin `print` (its callers look it up at each call)."""
        builtins.print = print_hook(self, self._counters, self._annotator, builtins.print)

    def install(self, module_name: str, module: types.ModuleType) -> None:
        """Wrap `module`'s hooked functions."""
        for class_name, attribute, probe in HOOKS[module_name]:
            owner = getattr(module, class_name, None) if class_name else module
            original = getattr(owner, attribute, None)
            if owner is None or not callable(original):
                self._send({"kind": "probe_error", "probe": probe,
                            "error": f"{module_name} has no {class_name or ''}.{attribute} "
                                     "to hook"})
                continue
            wrapper = self._makers[probe](original)
            for name in ("__module__", "__name__", "__qualname__", "__doc__"):
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(wrapper, name, getattr(original, name))
            wrapper.__wrapped__ = original  # type: ignore[attr-defined]
            setattr(owner, attribute, wrapper)

    def _after(self, recorded: int) -> None:
        self._tracer.after_call(recorded, self._annotator.recorded)

    def _function_call(self, original: Wrapper) -> Wrapper:
        hooks, annotator, counters = self, self._annotator, self._counters

        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            # A call while an outer function is traced is not an execution.
            if not hooks.running or not introspect.executing_eagerly():
                return original(self, *args, **kwargs)
            recorded = annotator.recorded
            annotator.hits["tf.function.call"] = annotator.hits.get("tf.function.call", 0) + 1
            key: FunctionKey | None = None
            try:
                key = counters.count_call(self)
            except Exception as error:
                annotator.report_error("tf.function.call", error)
            failed_traces = getattr(hooks._local, "failed_traces", 0)
            traces = counters.total_traces
            try:
                result = original(self, *args, **kwargs)
            except BaseException:
                if key is not None and getattr(hooks._local, "failed_traces", 0) > failed_traces:
                    counters.count_unrun(key)  # its trace raised
                raise
            finally:
                hooks._after(recorded)
            if key is not None and counters.total_traces == traces:
                try:
                    counters.check_globals(key)  # a graph traced before ran
                except Exception as error:
                    annotator.report_error("tf.function.call", error)
            return result

        return __call__

    def _trace(self, original: Wrapper) -> Wrapper:
        """A trace runs with the tracer on only where code of the user's may show something
        new: a trace of a function that runs the user's Python (a tf.function of theirs, an
        overridden `train_step`, a map function), until one of its traces records no new
        step. Keras's and tf.data's own traces run as the tracer is (off once the run
        repeats itself): the layers called in them switch it on at a new call site."""
        hooks, counters, annotator, tracer = self, self._counters, self._annotator, self._tracer

        def _create_concrete_function(*args: Any, **kwargs: Any) -> Any:
            if not hooks.running:
                return original(*args, **kwargs)
            caller = sys._getframe(1)  # _maybe_define_function
            annotator.hit_at("tf.function.trace", lambda: caller)
            key, recorded = counters.last_trace, annotator.recorded
            traced = (key is not None and key not in hooks._quiet_traces
                      and counters.user_functions.get(key) is not None)
            try:
                if traced:
                    return tracer.traced(original, args, kwargs)
                return original(*args, **kwargs)
            except BaseException:
                hooks._local.failed_traces = getattr(hooks._local, "failed_traces", 0) + 1
                if key is not None:
                    counters.count_failed_trace(key)
                raise
            finally:
                if traced and key is not None and annotator.recorded == recorded:
                    hooks._quiet_traces.add(key)  # its code has shown all it will

        return _create_concrete_function

    def _layer_call(self, original: Wrapper) -> Wrapper:
        hooks, annotator, tracer, counters = self, self._annotator, self._tracer, self._counters

        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not hooks.running:
                return original(self, *args, **kwargs)
            recorded = annotator.recorded
            frame = sys._getframe()
            new_site, numbers = False, None
            try:
                numbers = counters.count_layer_run(self, (*args, *kwargs.values()), frame)
                new_site = tracer.off and tracer.untraced() and not annotator.seen_enough(frame)
            except Exception as error:
                annotator.report_error("keras.Layer.__call__", error)
            try:
                if new_site:
                    return tracer.traced(original, (self, *args), kwargs)
                return original(self, *args, **kwargs)
            finally:
                if numbers is not None:
                    try:
                        counters.count_attribute_writes(self, *numbers)
                    except Exception as error:
                        annotator.report_error("keras.Layer.__call__", error)
                hooks._after(recorded)

        return __call__

    def _unfiltered(self, original: Wrapper) -> Wrapper:
        hooks = self

        def _process_traceback_frames(*args: Any, **kwargs: Any) -> Any:
            if hooks.running:
                handler = sys._getframe(1)  # the filter's error handler, with the exception `e`
                hooks._annotator.hit_at("exception.unfiltered", lambda: handler)
            return original(*args, **kwargs)

        return _process_traceback_frames

    def _untraced(self, original: Wrapper) -> Wrapper:
        """TensorFlow's and Keras's own Python where no probe is and no code of the user's runs:
        AutoGraph's transpiler rewriting a function's source (under `sys.settrace` it ran 3×
        slower: a third of a run converting Sonnet's modules), an optimizer applying its
        updates (in a trace, Python for every variable). The tracer is off for it."""
        return self._untraced_unless(original, lambda: False)

    def _gradient(self, original: Wrapper) -> Wrapper:
        """`GradientTape.gradient`: TensorFlow's backward pass, Python for every op of the
        forward one (in a two-tape GAN step, most of a trace). Untraced unless a
        `custom_gradient` of the user's was seen: its gradient function, and the forward pass
        `recompute_grad` runs again, are the user's code and show steps."""
        return self._untraced_unless(original, lambda: self._annotator.custom_gradients)

    def _untraced_unless(self, original: Wrapper, traced: Callable[[], bool]) -> Wrapper:
        hooks = self

        def untraced(*args: Any, **kwargs: Any) -> Any:
            if not hooks.running or traced():
                return original(*args, **kwargs)
            return hooks._tracer.untraced_call(original, args, kwargs)

        return untraced

def print_hook(hooks: Hooks, counters: Counters, annotator: Annotator,
               original: Wrapper) -> Wrapper:
    """`print`, counted where it runs while a graph is traced (its output then shows what
    tracing saw, once per trace)."""

    def print(*args: Any, **kwargs: Any) -> Any:
        if hooks.running and introspect.executing_eagerly() is False:
            try:
                counters.count_print(sys._getframe(1), args)
            except Exception as error:
                annotator.report_error("print", error)
        return original(*args, **kwargs)

    print.__wrapped__ = original  # type: ignore[attr-defined]
    return print


class Installer:
    """A `sys.meta_path` finder that wraps the `HOOKS` functions of each module as it is
    imported (modules imported before it are wrapped at once). Finds nothing itself."""

    def __init__(self, hooks: Hooks) -> None:
        self._hooks = hooks
        for name in HOOKS:
            if name in sys.modules:
                hooks.install(name, sys.modules[name])

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name not in HOOKS:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if finder is not self and find else None
            if spec is not None:
                break
        else:
            return None
        execute = getattr(spec.loader, "exec_module", None)
        if execute is not None:
            hooks = self._hooks

            def exec_module(module: types.ModuleType) -> None:
                execute(module)
                hooks.install(name, module)

            spec.loader.exec_module = exec_module  # this module's own loader object
        return spec
