"""A catalogue entry: how to recognise one known error or warning, and what to say about it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from string import Template
from textwrap import dedent

from tf_insight.explain.model import Incident, IncidentKind


class Locate(str, Enum):
    """Which frame best shows the user where the problem is."""

    RAISE = "raise"  # where the error was raised in user code (the usual case)
    DEFINITION = "definition"  # where the offending tensor was created ("was defined here")


@dataclass(frozen=True)
class Entry:
    """One known graph-mode error or warning.

    `pattern` is searched in the unwrapped message; its named groups (plus `layer`,
    `layer_type` and `type`) fill `$placeholders` in `summary`, `cause` and `fix`.
    `fix` is Markdown with code blocks. `rule` links the static rule that finds the cause
    before it runs; `also_rules` lists other rules that can cause the same message.

    `phrases` recognise the same error when `pattern` cannot: older TensorFlow/Keras wordings
    and pastes damaged by wrapping (inside words, too). They are searched in the *squashed*
    message (`squash`: lowercase, without whitespace, quotes and backticks), and such a match
    says so (`matched_by`), since the pattern's values are then missing.

    `when` is a further test of the incident. If it looks at the frames (`stack_check` says
    what for), a paste without frames cannot pass or fail it: the entry then matches, marked
    `unchecked`, and the explanation says it could not check, unless `unframed` says what the
    message itself must show instead (no guess without that context). `generic` entries match
    on a wrapper alone (Keras's, TensorFlow's "Graph execution error"): they say how to debug,
    not what is wrong. `stack` recognises the error from its innermost frames when the paste
    is cut before its message (`matched_by` "stack").
    """

    id: str
    title: str
    rule: str | None
    pattern: re.Pattern[str]
    summary: str
    cause: str
    fix: str
    links: tuple[str, ...] = ()
    types: frozenset[str] = frozenset()  # short exception/warning class names; empty: any
    kind: IncidentKind = IncidentKind.EXCEPTION
    when: Callable[[Incident], bool] | None = None
    locate: Locate = Locate.RAISE
    also_rules: tuple[str, ...] = ()
    defaults: tuple[tuple[str, str], ...] = ()  # values for optional pattern groups
    phrases: tuple[re.Pattern[str], ...] = ()
    stack_check: str | None = None
    unframed: Callable[[Incident], bool] | None = None
    stack: Callable[[Incident], bool] | None = None
    generic: bool = False

    def match(self, incident: Incident) -> dict[str, str] | None:
        """The template values when this entry explains `incident`, else None.

        `matched_by` says whether the message matched `pattern` ("message") or only a phrase
        ("phrase") or only the frames of a cut paste ("stack"); `unchecked` is "yes" when `when`
        needed frames the paste does not have.
        """
        if incident.kind is not self.kind or (self.types and incident.type not in self.types
                                              and incident.type):
            return None
        found = self.pattern.search(incident.message)
        matched_by = "message"
        if found is None and not incident.message.strip() and self.stack is not None \
                and incident.frames and self.stack(incident):
            matched_by = "stack"
        elif found is None:
            squashed = squash(incident.message)
            if not any(phrase.search(squashed) for phrase in self.phrases):
                return None
            matched_by = "phrase"
        unchecked = self.stack_check is not None and not incident.frames
        if unchecked and self.unframed is not None and not self.unframed(incident):
            return None
        if self.when is not None and not unchecked and not self.when(incident):
            return None
        values = {
            **dict(self.defaults),
            "type": incident.type,
            "layer": (incident.layer.name or incident.layer.type or "") if incident.layer else "",
            "layer_type": (incident.layer.type or "") if incident.layer else "",
            "matched_by": matched_by,
            "unchecked": "yes" if unchecked else "",
        }
        if found is not None:
            values.update({key: value for key, value in found.groupdict().items()
                           if value is not None})
        if "function" in values:
            values["function_name"] = identifier_of(values["function"])
        return values

    @property
    def rules(self) -> tuple[str, ...]:
        return ((self.rule,) if self.rule else ()) + self.also_rules


_SQUASH = re.compile(r"[\s`'\"\u2018\u2019\u201c\u201d]+")


def squash(text: str) -> str:
    """Lowercase, without whitespace, quotes and backticks: what survives any wrapping."""
    return _SQUASH.sub("", text.lower())


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def identifier_of(qualified: str) -> str:
    """A name that is valid in code for a function TensorFlow printed by its qualified name
    (`Model.make_predict_function.<locals>.predict_function` -> `predict_function`;
    a lambda -> `step`)."""
    last = qualified.rsplit(".", 1)[-1]
    return last if _IDENTIFIER.fullmatch(last) else "step"


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute `$name` placeholders; unknown names stay as written."""
    return Template(template).safe_substitute(values)


def entry(
    id: str,
    *,
    title: str,
    rule: str | None,
    pattern: str,
    summary: str,
    cause: str,
    fix: str,
    links: tuple[str, ...] = (),
    types: tuple[str, ...] = (),
    kind: IncidentKind = IncidentKind.EXCEPTION,
    when: Callable[[Incident], bool] | None = None,
    locate: Locate = Locate.RAISE,
    also_rules: tuple[str, ...] = (),
    defaults: dict[str, str] | None = None,
    phrases: tuple[str, ...] = (),
    stack_check: str | None = None,
    unframed: Callable[[Incident], bool] | None = None,
    stack: Callable[[Incident], bool] | None = None,
    generic: bool = False,
) -> Entry:
    """Build an `Entry`, compiling `pattern` and trimming the indented text blocks."""
    return Entry(
        id=id,
        title=title,
        rule=rule,
        pattern=re.compile(pattern),
        summary=reflow(summary),
        cause=reflow(cause),
        fix=reflow(fix),
        links=links,
        types=frozenset(types),
        kind=kind,
        when=when,
        locate=locate,
        also_rules=also_rules,
        defaults=tuple((defaults or {}).items()),
        phrases=tuple(re.compile(phrase) for phrase in phrases),
        stack_check=stack_check,
        unframed=unframed,
        stack=stack,
        generic=generic,
    )


def reflow(text: str) -> str:
    """Dedent, and join the hard-wrapped lines of each prose paragraph into one line.

    Renderers wrap prose to their own width; code blocks (``` fences) keep their lines.
    """
    paragraphs: list[str] = []
    prose: list[str] = []
    in_code = False
    for line in dedent(text).strip().split("\n"):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("```") or not line.strip():
            if prose:
                paragraphs.append(" ".join(prose))
                prose = []
            paragraphs.append(line)
        else:
            prose.append(line.strip())
    if prose:
        paragraphs.append(" ".join(prose))
    return "\n".join(paragraphs)
