"""Plain-text (terminal) and Markdown (editor hover, issue comment) renderings."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from tf_insight.explain.model import Frame

if TYPE_CHECKING:
    from tf_insight.explain.explanation import Explanation

_MESSAGE_LINES = 6  # long messages (Keras's KerasTensor advice) are cut in the header
_WIDTH = 88


def _short_message(message: str) -> str:
    lines = message.strip().split("\n")
    return "\n".join(lines[:_MESSAGE_LINES]) + ("\n..." if len(lines) > _MESSAGE_LINES else "")


def _where(frame: Frame) -> str:
    function = f" in {frame.function}" if frame.function and frame.function != "<module>" else ""
    if frame.cell is not None:
        return f"notebook cell {frame.cell}, line {frame.line}{function}"
    return f"{frame.path}:{frame.line}{function}"


def _how_sure(explanation: Explanation) -> str:
    return f"{explanation.confidence} ({'; '.join(explanation.evidence)})"


def _sections(explanation: Explanation) -> list[tuple[str, str]]:
    sections = (("What happened", explanation.summary), ("Why", explanation.cause),
                ("Fix", explanation.fix))
    return [(label, body) for label, body in sections if body]


def _heading(explanation: Explanation) -> str:
    tags = [tag for tag in (explanation.id, explanation.rule) if tag]
    return explanation.title + (f"  [{' · '.join(tags)}]" if tags else "")


def render_text(explanation: Explanation) -> str:
    """What `tf-insight explain` prints to a terminal."""
    out = [_heading(explanation), ""]
    if explanation.exception is not None:
        exception = explanation.exception
        out += [f"{exception.type}: {_short_message(exception.message)}".rstrip(": "), ""]
    if explanation.user_frame is not None:
        out.append(f"Where: {_where(explanation.user_frame)}")
        if explanation.user_frame.code:
            out.append(f"    {explanation.user_frame.code}")
    if (
        explanation.definition_frame is not None
        and explanation.definition_frame != explanation.user_frame
    ):
        out.append(f"Tensor defined at: {_where(explanation.definition_frame)}")
    if explanation.layer is not None:
        layer = explanation.layer
        out.append(
            f'Layer: "{layer.name}" ({layer.type})' if layer.name else f"Layer: {layer.type}"
        )
    if explanation.call_arguments:
        arguments = ", ".join(f"{key}={value}" for key, value in explanation.call_arguments.items())
        out.append(f"Call arguments: {arguments}")
    if out[-1]:
        out.append("")
    for label, body in _sections(explanation):
        out += [f"{label}:", _indent(body), ""]
    if explanation.findings:
        out.append("Static findings in your code:")
        for finding in explanation.findings:
            where = f"{finding.path}:{finding.span.line}:{finding.span.column + 1}:"
            line = f"{where} {finding.code} {finding.message}"
            out += textwrap.wrap(line, _WIDTH, initial_indent="  ", subsequent_indent="      ")
        out.append("")
    if explanation.confidence:
        out += textwrap.wrap(f"How sure: {_how_sure(explanation)}", _WIDTH,
                             subsequent_indent="  ")
    if explanation.rule:
        out.append(f"Rule: {explanation.rule} (tf-insight rule {explanation.rule})")
    out += [f"See: {link}" for link in explanation.links]
    out += [f"Note: {note}" for note in explanation.notes]
    return "\n".join(out).rstrip() + "\n"


def _indent(text: str) -> str:
    """Indent by two spaces, wrapping prose lines to the terminal width; code stays as is."""
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if line.startswith("```"):
            in_code = not in_code
            out.append(f"  {line}")
        elif in_code or not line:
            out.append(f"  {line}" if line else "")
        else:
            out += textwrap.wrap(line, _WIDTH, initial_indent="  ", subsequent_indent="  ") or [""]
    return "\n".join(out)


def render_markdown(explanation: Explanation) -> str:
    """Markdown for editors (hover, notebook output) and issue comments."""
    out = [f"### {explanation.title}", ""]
    tags = [f"`{tag}`" for tag in (explanation.id, explanation.rule) if tag]
    if tags:
        out += [" · ".join(tags), ""]
    if explanation.exception is not None:
        exception = explanation.exception
        out += [
            "```text",
            f"{exception.type}: {_short_message(exception.message)}".rstrip(": "),
            "```",
            "",
        ]
    if explanation.user_frame is not None:
        frame = explanation.user_frame
        out.append(f"**Where:** `{_where(frame)}`" + (f" — `{frame.code}`" if frame.code else ""))
    if (
        explanation.definition_frame is not None
        and explanation.definition_frame != explanation.user_frame
    ):
        out.append(f"**Tensor defined at:** `{_where(explanation.definition_frame)}`")
    if explanation.layer is not None:
        out.append(
            f"**Layer:** `{explanation.layer.name or explanation.layer.type}` ({explanation.layer.type})"
        )
    if out[-1]:
        out.append("")
    for label, body in _sections(explanation):
        out += [f"**{label}.** {body}", ""]
    if explanation.findings:
        out.append("**Static findings in your code:**")
        out += [f"- `{f.path}:{f.span.line}` {f.code} {f.message}" for f in explanation.findings]
        out.append("")
    if explanation.confidence:
        out += [f"**How sure:** {_how_sure(explanation)}", ""]
    out += [f"- {link}" for link in explanation.links]
    out += [f"> Note: {note}" for note in explanation.notes]
    return "\n".join(out).rstrip() + "\n"
