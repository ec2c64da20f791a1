"""The result of `explain`: what happened, why, where, and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tf_insight.explain.model import Frame, LayerInfo
from tf_insight.findings import Finding


@dataclass(frozen=True)
class ExceptionInfo:
    """The exception (or warning) class and its message, unwrapped from Keras's wrappers."""

    type: str
    message: str
    qualified_type: str

    def to_dict(self) -> dict[str, str]:
        return {"type": self.type, "qualified_type": self.qualified_type, "message": self.message}


@dataclass(frozen=True)
class Explanation:
    """One explained error or warning.

    `id`/`rule` are None when the error is not in the catalogue (the parsed frames and the
    unwrapped message are still filled) or when the input held no traceback (`exception` is
    None then and `notes` says so).
    """

    id: str | None
    rule: str | None
    title: str
    summary: str
    cause: str
    fix: str
    links: tuple[str, ...] = ()
    kind: str | None = None  # "exception", "warning", or None when nothing was found
    exception: ExceptionInfo | None = None
    user_frame: Frame | None = None
    # Where the offending tensor was created, when TF reported it ("was defined here").
    definition_frame: Frame | None = None
    frames: tuple[Frame, ...] = ()
    layer: LayerInfo | None = None
    call_arguments: dict[str, str] = field(default_factory=dict, hash=False)
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    # How sure the diagnosis is ("high", "medium", "low"; None when nothing was recognised),
    # and what made it so: which text matched, whether a user frame and static findings agree.
    confidence: str | None = None
    evidence: tuple[str, ...] = ()

    @property
    def recognised(self) -> bool:
        return self.id is not None

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of `tf-insight explain --format json`."""
        return {
            "id": self.id,
            "rule": self.rule,
            "title": self.title,
            "summary": self.summary,
            "cause": self.cause,
            "fix": self.fix,
            "links": list(self.links),
            "kind": self.kind,
            "exception": self.exception.to_dict() if self.exception else None,
            "user_frame": frame_to_dict(self.user_frame) if self.user_frame else None,
            "definition_frame": frame_to_dict(self.definition_frame)
            if self.definition_frame
            else None,
            "frames": [frame_to_dict(frame) for frame in self.frames],
            "layer": {"name": self.layer.name, "type": self.layer.type} if self.layer else None,
            "call_arguments": dict(self.call_arguments),
            "findings": [finding.to_dict() for finding in self.findings],
            "notes": list(self.notes),
            "confidence": self.confidence,
            "evidence": list(self.evidence),
        }


def frame_to_dict(frame: Frame) -> dict[str, Any]:
    return {
        "path": frame.path,
        "line": frame.line,
        "function": frame.function,
        "code": frame.code,
        "user": frame.is_user,
        "origin": frame.origin.value,
        "cell": frame.cell,
    }
