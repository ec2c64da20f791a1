"""TF Insight core: static analysis, error explanation and guided debug sessions for
TensorFlow/Keras graph-mode hazards.

The core knows nothing of LSP or VS Code and never imports TensorFlow: static analysis reads
source, and runtime work runs in the user's interpreter (see :mod:`tf_insight.session`).

`__all__` here and in `tf_insight.check`, `tf_insight.explain` and `tf_insight.session` is the
core's API for its adapters: the language server imports nothing else of the core
(`tests/test_architecture.py`). The shared names below load their module on first use, so
`import tf_insight` stays as cheap as it was (the CLI's start, `%load_ext tf_insight`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tf_insight.config import KERAS_SETTINGS, Config
    from tf_insight.files import read_text
    from tf_insight.findings import Finding, Fix, Severity, Span
    from tf_insight.framing import FrameDecoder
    from tf_insight.isolation import harden_this_process

__version__ = "0.1.0"

__all__ = [
    "KERAS_SETTINGS",
    "Config",
    "Finding",
    "Fix",
    "FrameDecoder",
    "Severity",
    "Span",
    "__version__",
    "harden_this_process",
    "load_ipython_extension",
    "read_text",
    "unload_ipython_extension",
]


def _lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's `__getattr__` that imports each name of `homes` from its module (the
    value) when it is first asked for."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__


__getattr__ = _lazy_exports(__name__, {
    "KERAS_SETTINGS": "tf_insight.config",
    "Config": "tf_insight.config",
    "read_text": "tf_insight.files",
    "Finding": "tf_insight.findings",
    "Fix": "tf_insight.findings",
    "Severity": "tf_insight.findings",
    "Span": "tf_insight.findings",
    "FrameDecoder": "tf_insight.framing",
    "harden_this_process": "tf_insight.isolation",
})


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext tf_insight` (see :mod:`tf_insight.ipython_extension`)."""
    from tf_insight.ipython_extension import load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    from tf_insight.ipython_extension import unload

    unload(ipython)
