"""What the parser extracts from pasted text: frames, exceptions, warnings.

Plain frozen dataclasses with no behaviour beyond small conveniences, so the catalogue, the
engine and the renderers can share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class FrameOrigin(str, Enum):
    """Which part of the pasted text a frame came from."""

    TRACEBACK = "traceback"  # the Python traceback itself
    USER_CODE = "user_code"  # AutoGraph's "in user code:" section (real source lines)
    DEFINED_HERE = "defined_here"  # "<tf.Tensor ...> was defined here:" (out-of-scope tensors)
    NODE_DEFINITION = "node_definition"  # "Detected at node X defined at ..." (runtime op errors)
    WORKSPACE = "workspace"  # found by searching the workspace (a warning named the function)


@dataclass(frozen=True)
class Frame:
    """One `File "path", line N, in function` entry, flagged user code or library."""

    path: str
    line: int
    function: str
    code: str | None
    is_user: bool
    origin: FrameOrigin = FrameOrigin.TRACEBACK
    # AutoGraph marks frames of converted functions with "*" and of unconverted ones with "**".
    autograph_marker: str = ""
    # The notebook cell the code was in (`In[5]`, `ipython-input-3-5f1c0a9e2b7d`); `line`
    # then counts from the cell's first line.
    cell: str | None = None


@dataclass(frozen=True)
class LayerInfo:
    """The layer Keras named in its wrapper text (`name` only when Keras printed it)."""

    name: str | None
    type: str | None


class IncidentKind(str, Enum):
    EXCEPTION = "exception"
    WARNING = "warning"


@dataclass(frozen=True)
class Incident:
    """One exception (from a traceback) or one logged warning, unwrapped.

    `type` is the short class name (`OperatorNotAllowedInGraphError`, `UserWarning`, or
    `WARNING` for TensorFlow log warnings); `message` is the core message with Keras's and
    AutoGraph's wrapper text removed; `raw_message` is what was printed.
    """

    kind: IncidentKind
    type: str
    qualified_type: str
    message: str
    raw_message: str
    frames: tuple[Frame, ...] = ()
    layer: LayerInfo | None = None
    call_arguments: dict[str, str] = field(default_factory=dict, hash=False)
    # Which wrappers were removed, outermost first (e.g. "keras3-call", "autograph-user-code").
    wrappers: tuple[str, ...] = ()
    # Set for exceptions printed after "During handling..."/"The above exception...".
    chained: bool = False
    # Where the text was found (1-based line of the exception or warning in the input).
    input_line: int = 0
