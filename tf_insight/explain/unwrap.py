"""Peeling the wrapper text TensorFlow and Keras put around the real error message.

The layers, outermost first, as printed by TF 2.21:
- AutoGraph: `in user code:` + frames (marked `*`/`**`; TF <= 2.4: `path:line f  *`) + the
  inner `Type: message`;
- Keras 3: `Exception encountered when calling X.call().` ... `Arguments received by X.call():`,
  with, during symbolic (functional) builds, `Could not automatically infer the output shape /
  dtype of 'x' (of type X). ... Error encountered:` in between;
- tf-keras: `Exception encountered when calling layer "x" (type X).` ...
  `Call arguments received by layer "x" (type X):`;
- runtime op errors: `Graph execution error:` + `Detected at node N defined at ...` frames
  (TF 2.0-2.8: the message, `[[node N (defined at /p/x.py:12) ]]`, `[Op:__inference_f_123]`,
  `Function call stack:`);
- out-of-scope tensors: `<tf.Tensor ...> was defined here:` + frames.
Each can contain the next, so `unwrap` peels until nothing matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tf_insight.explain.frames import AUTOGRAPH_OLD_FRAME, PYTHON_FRAME, cell_of, is_library_path
from tf_insight.explain.model import Frame, FrameOrigin, LayerInfo

_KERAS3_CALL = re.compile(r"^Exception encountered when calling (?P<type>[\w.]+)\.call\(\)\.\s*$")
_KERAS3_ARGUMENTS = re.compile(r"^Arguments received by [\w.]+\.call\(\):\s*$")
_KERAS3_SYMBOLIC = re.compile(
    r"^Could not automatically infer the output shape / dtype of '(?P<name>[^']*)'"
    r" \(of type (?P<type>[\w.]+)\)\..*?Error encountered:\s*$"
)
_TF_KERAS_CALL = re.compile(
    r"""^Exception encountered when calling layer ["'](?P<name>[^"']*)["'] \(type (?P<type>[\w.]+)\)\.\s*$"""
)
_TF_KERAS_ARGUMENTS = re.compile(
    r"""^Call arguments received by layer ["'][^"']*["'] \(type [\w.]+\):\s*$"""
)
# Keras 3 lists an absent **kwargs as this value; it carries no information.
_NO_VALUE = "<class 'inspect._empty'>"
_ARGUMENT = re.compile(r"^\s*(?:•|-|\*|â€¢)\s*(?P<key>[\w.*]+)=(?P<value>.*)$")
# indented under "in user code:", unless the paste lost its indentation
_INNER_EXCEPTION = re.compile(r"^(?P<indent>[ \t]*)(?P<type>[A-Za-z_][\w.]*): ?(?P<message>.*)$")
_DEFINED_HERE = re.compile(r"^(?P<tensor><.*>) was defined here:\s*$")
_NODE_DEFINITION = re.compile(
    r"^Detected at node (?P<node>\S+) defined at \(most recent call last\):\s*$"
)
_NODE_LINE = re.compile(r"^[ \t]*\[\[\{\{node [^}\n]*\}\}\]\]")
# TF 2.0-2.8 ran a `tf.function`'s graph and said so after the message.
_FUNCTION_CALL_STACK = re.compile(r"^Function call stack:\s*$|\[Op:__inference_\w+\]", re.M)
_OLD_NODE_LINE = re.compile(
    r"^[ \t]*\[\[node \S+(?: \(defined at (?P<path>[^\n]+?):(?P<line>\d+)\))? *\]\]")
# Eager op errors: "{{function_node __wrapped__Squeeze_...}} message [Op:Squeeze] name: ".
_OP_PREFIX = re.compile(r"^\{\{function_node [^}\n]*\}\} ?")
_OP_SUFFIX = re.compile(r" ?\[Op:[^\]\n]*\](?: name: \S*)? *$")


@dataclass
class Unwrapped:
    """The core of a message and what its wrappers told us."""

    type: str
    message: str
    layer: LayerInfo | None = None
    call_arguments: dict[str, str] = field(default_factory=dict)
    wrappers: list[str] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)


def short_type(qualified: str) -> str:
    """`tensorflow.python.framework.errors_impl.InvalidArgumentError` -> `InvalidArgumentError`."""
    return qualified.rsplit(".", 1)[-1]


def unwrap(exception_type: str, message: str) -> Unwrapped:
    """Remove every known wrapper from `message`; the innermost type wins."""
    result = Unwrapped(type=short_type(exception_type), message=message.strip("\n"))
    for _ in range(8):  # wrappers nest a few levels at most; the bound guards odd input
        lines = result.message.split("\n")
        first = lines[0].strip() if lines else ""
        if first in ("in user code:", "in converted code:"):  # the latter: TF 2.0-2.1
            if not _peel_user_code(result, lines):
                break
        elif _KERAS3_CALL.match(first) or _TF_KERAS_CALL.match(first):
            _peel_keras_call(result, lines)
        elif first == "Graph execution error:":
            _peel_graph_execution(result, lines)
        elif "graph-execution" not in result.wrappers and _FUNCTION_CALL_STACK.search(
                result.message):
            _peel_function_call_stack(result, lines)
        elif any(_DEFINED_HERE.match(line) for line in lines):
            _peel_defined_here(result, lines)
        else:
            break
    result.message = _OP_SUFFIX.sub("", _OP_PREFIX.sub("", result.message.strip())).strip()
    return result


def _frame(match: re.Match[str], origin: FrameOrigin, code: str | None = None) -> Frame:
    path = match["path"]
    return Frame(
        path=path,
        line=int(match["line"]),
        function=(match["function"] or "").strip(),
        code=code,
        is_user=not is_library_path(path),
        origin=origin,
        autograph_marker=match["marker"] or "",
        cell=cell_of(path),
    )


def _collect_frames(lines: list[str], start: int, origin: FrameOrigin) -> tuple[list[Frame], int]:
    """Frames from `lines[start:]` (blank lines allowed between); returns them and the next index."""
    frames: list[Frame] = []
    index = start
    while index < len(lines):
        match = PYTHON_FRAME.match(lines[index]) or AUTOGRAPH_OLD_FRAME.match(lines[index])
        if match is None:
            if lines[index].strip():
                break
            index += 1
            continue
        indent = len(match["indent"])
        code: str | None = None
        following = lines[index + 1] if index + 1 < len(lines) else ""
        after = lines[index + 2] if index + 2 < len(lines) else ""
        following_indent = len(following) - len(following.lstrip())
        # the code line is indented deeper, or (indentation lost in the paste) lies between
        # two frames
        if (following.strip() and not _is_frame(following)
                and (following_indent > indent or not after.strip() or _is_frame(after))):
            code = following.strip()
            index += 1
        frames.append(_frame(match, origin, code))
        index += 1
    return frames, index


def _is_frame(line: str) -> bool:
    return PYTHON_FRAME.match(line) is not None or AUTOGRAPH_OLD_FRAME.match(line) is not None


def _peel_user_code(result: Unwrapped, lines: list[str]) -> bool:
    frames, index = _collect_frames(lines, 1, FrameOrigin.USER_CODE)
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines) and frames:  # a paste cut before the inner exception
        result.frames.extend(frames)
        result.wrappers.append("autograph-user-code")
        result.message = ""
        return False
    inner = _INNER_EXCEPTION.match(lines[index]) if index < len(lines) else None
    if inner is None:
        return False
    prefix = inner["indent"]
    rest = [
        line[len(prefix) :] if line.startswith(prefix) else line.lstrip()
        for line in lines[index + 1 :]
    ]
    result.frames.extend(frames)
    result.wrappers.append("autograph-user-code")
    result.type = short_type(inner["type"])
    result.message = "\n".join([inner["message"], *rest]).strip("\n")
    return True


def _peel_keras_call(result: Unwrapped, lines: list[str]) -> None:
    header = lines[0].strip()
    keras3 = _KERAS3_CALL.match(header)
    if keras3 is not None:
        result.wrappers.append("keras3-call")
        layer = LayerInfo(name=None, type=keras3["type"])
        arguments_header = _KERAS3_ARGUMENTS
    else:
        tf_keras = _TF_KERAS_CALL.match(header)
        assert tf_keras is not None  # the caller matched one of the two
        result.wrappers.append("tf-keras-call")
        layer = LayerInfo(name=tf_keras["name"], type=tf_keras["type"])
        arguments_header = _TF_KERAS_ARGUMENTS
    body = lines[1:]
    for index, line in enumerate(body):
        if arguments_header.match(line.strip()):
            result.call_arguments.update(_arguments(body[index + 1 :]))
            body = body[:index]
            break
    while body and not body[0].strip():
        body = body[1:]
    if body:
        symbolic = _KERAS3_SYMBOLIC.match(body[0].strip())
        if symbolic is not None:
            result.wrappers.append("keras3-symbolic-build")
            layer = LayerInfo(name=symbolic["name"], type=symbolic["type"])
            body = body[1:]
    if result.layer is None:  # the outermost layer is the one the user called
        result.layer = layer
    result.message = "\n".join(body).strip("\n")


def _arguments(lines: list[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    for line in lines:
        match = _ARGUMENT.match(line)
        if match is None:
            if line.strip():
                break
            continue
        if match["value"].strip() != _NO_VALUE:
            arguments[match["key"]] = match["value"].strip()
    return arguments


def _peel_graph_execution(result: Unwrapped, lines: list[str]) -> None:
    result.wrappers.append("graph-execution")
    kept: list[str] = []
    index = 1
    while index < len(lines):
        node = _NODE_DEFINITION.match(lines[index].strip())
        if node is None:
            if not _NODE_LINE.match(lines[index]):
                kept.append(lines[index])
            index += 1
            continue
        frames, index = _collect_frames(lines, index + 1, FrameOrigin.NODE_DEFINITION)
        result.frames.extend(frames)
    result.message = "\n".join(kept).strip("\n")


def _peel_function_call_stack(result: Unwrapped, lines: list[str]) -> None:
    """TF 2.0-2.8's runtime error in a `tf.function`: the op's definition is in its node
    line, `Function call stack:` and the function names after it end the message."""
    result.wrappers.append("graph-execution")
    kept: list[str] = []
    for line in lines:
        if line.strip() == "Function call stack:":
            break
        node = _OLD_NODE_LINE.match(line)
        if node is None:
            kept.append(line)
        elif node["path"]:
            path = node["path"]
            result.frames.append(Frame(path=path, line=int(node["line"]), function="",
                                       code=None, is_user=not is_library_path(path),
                                       origin=FrameOrigin.NODE_DEFINITION, cell=cell_of(path)))
    result.message = "\n".join(kept).strip("\n")


def _peel_defined_here(result: Unwrapped, lines: list[str]) -> None:
    result.wrappers.append("defined-here")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if _DEFINED_HERE.match(lines[index]) is None:
            kept.append(lines[index])
            index += 1
            continue
        frames, index = _collect_frames(lines, index + 1, FrameOrigin.DEFINED_HERE)
        result.frames.extend(frames)
    result.message = "\n".join(kept).strip("\n")
