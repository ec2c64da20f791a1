"""`explain(text)`: parse, pick the incident to explain, match the catalogue, join the code."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TypeVar

from tf_insight.explain.catalogue import ENTRIES, Entry, Locate, fill, find_entry
from tf_insight.explain.catalogue.entry import reflow
from tf_insight.explain.explanation import ExceptionInfo, Explanation
from tf_insight.explain.frames import is_plain_python
from tf_insight.explain.join import find_definition, join_findings, workspace_file
from tf_insight.explain.model import Frame, FrameOrigin, Incident, IncidentKind
from tf_insight.explain.parser import ParsedText, parse
from tf_insight.explain.pointers import Pointer, pointer_for
from tf_insight.findings import Finding

_FRAME_PREFERENCE = {
    # AutoGraph's "in user code" lines and TF's op definitions point inside the graph code,
    # closer to the cause than the Python call into the graph.
    Locate.RAISE: (
        FrameOrigin.USER_CODE,
        FrameOrigin.NODE_DEFINITION,
        FrameOrigin.TRACEBACK,
        FrameOrigin.DEFINED_HERE,
    ),
    Locate.DEFINITION: (
        FrameOrigin.DEFINED_HERE,
        FrameOrigin.USER_CODE,
        FrameOrigin.NODE_DEFINITION,
        FrameOrigin.TRACEBACK,
    ),
}

NOT_A_TRACEBACK_NOTE = (
    "input was not a traceback: no Python traceback or TensorFlow/Keras warning was found"
)

_GENERIC_CAUSE = reflow("""
    Not in the catalogue. If it was raised inside `fit`/`evaluate`/`predict`, a `tf.function`,
    a Keras `call` or a `Dataset.map` function, that code ran as a graph: Python executed once
    to trace it, tensors were symbolic (no values, unknown batch size), and Python-side effects
    happened at trace time only.
""")
_GENERIC_FIX = reflow("""
    Re-run eagerly to get a plain Python traceback at the real line, then fix it there:

    ```python
    tf.config.run_functions_eagerly(True)       # tf.function and Keras fit
    model.compile(..., run_eagerly=True)        # Keras only
    tf.data.experimental.enable_debug_mode()    # Dataset.map functions
    keras.config.disable_traceback_filtering()  # Keras 3: keep all frames
    ```

    Also run `tf-insight check` on the file: it finds common graph-mode hazards statically.
""")

_NOT_GRAPH_CAUSE = reflow("""
    Not in the catalogue, which knows graph-mode errors: this is a common failure of another
    kind.
""")

_PLAIN_PYTHON_CAUSE = reflow("""
    No TensorFlow or Keras code is on its traceback, and no AutoGraph or Keras wrapper text:
    Python raised it in ordinary code, not while tracing or running a graph. It is no
    graph-mode hazard.
""")
_PLAIN_PYTHON_FIX = reflow("""
    Fix it at the last line of yours in the traceback, as any Python error: there is nothing
    graph-mode to it.
""")

Match = tuple[Entry, dict[str, str]]


def explain(text: str, root: Path | None = None) -> Explanation:
    """Explain the error or warning in pasted terminal `text`.

    With `root` (the workspace), user frames are mapped to files under it and the static
    analyzer's findings at or near the failing lines are attached. Never raises on any `str`.
    """
    parsed = parse(text)
    notes: list[str] = []
    chosen = _choose(parsed, notes) or _message_only(parsed, notes)
    if chosen is None:
        return Explanation(
            id=None,
            rule=None,
            title="No traceback found",
            summary="The input holds no Python traceback and no known TensorFlow/Keras warning.",
            cause="",
            fix="Paste everything TensorFlow printed, from `Traceback (most recent call last):` "
            "to the last line of the error message.",
            notes=(NOT_A_TRACEBACK_NOTE,),
        )
    incident, match = chosen
    entry, values = match if match else (None, {})
    user_frame = _user_frame(incident, entry)
    definition = _last_user_frame(incident.frames, FrameOrigin.DEFINED_HERE)
    exception = _exception_info(incident, notes)
    findings: list[Finding] = []
    rule = entry.rule if entry else None
    if root is not None:
        if user_frame is None and "function" in values:
            user_frame = find_definition(root, values["function"])
        frames = (*incident.frames, *((user_frame,) if user_frame else ()))
        joined = join_findings(frames, root, entry.rules if entry else ())
        findings, notes = joined.findings, notes + joined.notes
        rule = _refined_rule(entry, [finding.code for finding in findings]) if entry else None
        # Tracebacks from another machine or a container: point at this workspace's files.
        user_frame = _in_workspace(user_frame, root)
        definition = _in_workspace(definition, root)
        incident = dataclasses.replace(
            incident, frames=tuple(_in_workspace(frame, root) for frame in incident.frames))
    pointer = _pointer(parsed, incident) if entry is None else None
    if entry is not None:
        title, cause, fix = entry.title, _cause(entry, values, findings), fill(entry.fix, values)
    elif pointer is not None:
        title = f"Unrecognised {incident.type or 'error'}: {pointer.kind}, not a graph-mode error"
        cause, fix = _NOT_GRAPH_CAUSE, pointer.text
        findings = []  # graph-mode hazards in the code did not raise this
    elif is_plain_python(incident):
        title, cause, fix = f"{incident.type} outside TensorFlow", _PLAIN_PYTHON_CAUSE, _PLAIN_PYTHON_FIX
        findings = []  # TensorFlow hazards elsewhere in the code did not raise this
    else:
        title, cause, fix = _generic_title(incident), _GENERIC_CAUSE, _GENERIC_FIX
    confidence, evidence = _confidence(entry, values, incident, user_frame, findings)
    if user_frame is None and incident.kind is IncidentKind.EXCEPTION and not incident.frames:
        notes.append("the paste has no traceback frames: paste everything from "
                     "`Traceback (most recent call last):` on to see the line in your code")
    return Explanation(
        id=entry.id if entry else None,
        rule=rule,
        title=title,
        summary=fill(entry.summary, values) if entry else _generic_summary(incident),
        cause=cause,
        fix=fix,
        links=entry.links if entry else (),
        kind=incident.kind.value,
        exception=exception,
        user_frame=user_frame,
        definition_frame=definition,
        frames=incident.frames,
        layer=incident.layer,
        call_arguments=dict(incident.call_arguments),
        findings=tuple(findings),
        notes=tuple(notes),
        confidence=confidence,
        evidence=evidence,
    )


def _choose(parsed: ParsedText, notes: list[str]) -> tuple[Incident, Match | None] | None:
    """The incident to explain: of all exceptions and warnings in the paste, the most specific
    one the catalogue knows (exceptions first, then the latest); an unknown exception that is
    a common non-graph failure beats a known warning. Unknown: the last exception, else the
    first warning. The notes say which was chosen and what else the paste holds."""
    exceptions = parsed.exceptions
    if parsed.truncated:
        notes.append("the error message was very long and was cut for analysis")
    if parsed.skipped_lines:
        notes.append(f"the paste is very long: {parsed.skipped_lines:,} lines in its middle were "
                     "not read (its first and last lines were)")
    known = [(incident, match) for incident in [*parsed.incidents, *_autograph_causes(parsed)]
             if (match := find_entry(incident)) is not None]
    known_exceptions = [pair for pair in known if pair[0].kind is IncidentKind.EXCEPTION]
    last = exceptions[-1] if exceptions else None
    if known_exceptions:
        chosen: tuple[Incident, Match | None] = max(
            known_exceptions, key=lambda pair: (_strength(*pair[1]), pair[0].input_line))
    elif known and (last is None or pointer_for(last) is None):
        chosen = max(known, key=lambda pair: (_strength(*pair[1]), -pair[0].input_line))
    elif last is not None:
        chosen = (last, None)
    elif parsed.warnings:
        chosen = (parsed.warnings[0], None)
    else:
        return None
    _note_choice(parsed, chosen[0], notes)
    known_warnings = {match[0].id for incident, match in known
                      if incident.kind is IncidentKind.WARNING and incident is not chosen[0]}
    if known_warnings and chosen[0].kind is IncidentKind.EXCEPTION:
        notes.append("the input also has known warnings: " + ", ".join(sorted(known_warnings)))
    return chosen


def _pointer(parsed: ParsedText, incident: Incident) -> Pointer | None:
    """The common non-graph failure `incident` is, or the exception it was raised while
    handling is (`ImportError` chained to "DLL load failed")."""
    chain = [incident]
    exceptions = parsed.exceptions
    while chain[-1].chained and (position := _index(exceptions, chain[-1])) > 0:
        chain.append(exceptions[position - 1])
    return next((pointer for link in chain if (pointer := pointer_for(link)) is not None), None)


def _index(incidents: list[Incident], incident: Incident) -> int:
    return next((position for position, other in enumerate(incidents) if other is incident), -1)


def _strength(entry: Entry, values: dict[str, str]) -> int:
    """How much of a match is the error's own text: its wording (3), another version's or a
    damaged wording (2), only a wrapper, the frames of a cut paste or an unchecked guess (1)."""
    if entry.generic or values.get("unchecked") or values.get("matched_by") == "stack":
        return 1
    return 2 if values.get("matched_by") == "phrase" else 3


_AUTOGRAPH_CAUSE = re.compile(r"^Cause: (?P<cause>[^\n]+)", re.MULTILINE)


def _autograph_causes(parsed: ParsedText) -> list[Incident]:
    """The errors AutoGraph's warnings give as their cause (`Cause: ...`), as exceptions of
    unknown type: the real error can be there, above a later, vaguer one."""
    return [Incident(kind=IncidentKind.EXCEPTION, type="", qualified_type="",
                     message=found["cause"], raw_message=found["cause"],
                     input_line=warning.input_line)
            for warning in parsed.warnings
            if (found := _AUTOGRAPH_CAUSE.search(warning.message)) is not None]


def _note_choice(parsed: ParsedText, chosen: Incident, notes: list[str]) -> None:
    """Say which incident was explained when it is not simply the only or the last one."""
    if not any(incident is chosen for incident in parsed.incidents):
        notes.append(f"explained the cause given by the AutoGraph warning at line "
                     f"{chosen.input_line} of the input, the most specific error tf-insight knows")
        return
    exceptions = parsed.exceptions
    if not exceptions:
        return
    last = exceptions[-1]
    if chosen is last:
        others = len(exceptions) - 1 + parsed.skipped_tracebacks
        if others:
            notes.append(f"{others} earlier traceback(s) in the input were not explained; "
                         "this is the last one")
        return
    what = "is not in the catalogue" if find_entry(last) is None else "is less specific"
    kind = "warning" if chosen.kind is IncidentKind.WARNING else (chosen.type or "exception")
    how = ("it was raised while handling" if last.chained and len(exceptions) > 1
           and exceptions[-2] is chosen else f"at line {chosen.input_line} of the input")
    notes.append(f"the last exception ({last.type or 'cut before its message'}) {what}; "
                 f"explained the {kind} {how}, the most specific one tf-insight knows")


_MESSAGE_ONLY_CHARS = 20_000


def _message_only(parsed: ParsedText,
                  notes: list[str]) -> tuple[Incident, Match | None] | None:
    """No traceback, error line or warning line: the text may still be a message on its own
    (pasted without its `ValueError:`). Only a known message counts, or a common non-graph
    failure (left unrecognised, with its pointer)."""
    message = parsed.text.strip()[-_MESSAGE_ONLY_CHARS:]
    incidents = [Incident(kind=kind, type="", qualified_type="", message=message,
                          raw_message=message) for kind in IncidentKind]
    for incident in incidents:
        match = find_entry(incident)
        if match is not None and not match[0].generic:
            notes.append("the input is a message without its error type or traceback")
            return incident, match
    exception = incidents[0]
    if pointer_for(exception) is not None:
        notes.append("the input is a message without its error type or traceback")
        return exception, None
    return None


def _confidence(entry: Entry | None, values: dict[str, str], incident: Incident,
                user_frame: Frame | None, findings: list[Finding]) -> tuple[str | None,
                                                                            tuple[str, ...]]:
    """How sure the diagnosis is, and the evidence: what matched, what is missing."""
    if entry is None:
        return None, ()
    evidence: list[str] = []
    if entry.generic:
        level = "low"
        evidence.append("only the wrapper around the error is known, not the error itself")
    elif values.get("matched_by") == "stack":
        level = "low"
        evidence.append("the paste is cut before the message; its last frames are NumPy "
                        "converting a TensorFlow tensor, where this error is raised")
    elif values.get("matched_by") == "phrase":
        level = "medium"
        evidence.append("the message matches this error's wording in another TensorFlow/Keras "
                        "version or a paste-damaged form of it, not its exact current wording")
    else:
        level = "high"
        evidence.append("the message matches this error's wording")
    if values.get("unchecked"):
        level = "low"
        evidence.append(f"could not check for {entry.stack_check}: the paste has no traceback")
    siblings = [other.id for other in ENTRIES if other is not entry
                and other.pattern.pattern == entry.pattern.pattern and not other.generic]
    # Warnings never carry frames, and siblings among them are told apart by the message.
    if (siblings and incident.kind is IncidentKind.EXCEPTION and not incident.frames
            and incident.layer is None):
        level = "low"
        evidence.append("the same message has another known cause the paste cannot tell "
                        f"apart: {', '.join(siblings)}")
    if user_frame is not None:
        where = (f"notebook cell {user_frame.cell}" if user_frame.cell else user_frame.path)
        evidence.append(f"your code is at {where}, line {user_frame.line}")
    elif incident.kind is IncidentKind.EXCEPTION:
        evidence.append("no frame of your code in the paste")
        if level == "high" and not incident.frames:
            level = "medium"
    related = [finding for finding in findings if finding.code in entry.rules]
    if related:
        finding = related[0]
        evidence.append(f"the static analyzer confirms it: {finding.code} at "
                        f"{finding.path}:{finding.span.line}")
        level = "high" if level == "medium" else level
    return level, tuple(evidence)


F = TypeVar("F", Frame, Frame | None)


def _in_workspace(frame: F, root: Path) -> F:
    """A user frame whose file is under `root` (by its longest matching path tail) gets that
    file's path; other frames are kept as printed."""
    if frame is None or not frame.is_user or frame.cell is not None:
        return frame
    file = workspace_file(root, frame.path)
    return dataclasses.replace(frame, path=str(file)) if file is not None else frame


def _user_frame(incident: Incident, entry: Entry | None) -> Frame | None:
    if incident.kind is IncidentKind.WARNING:
        return next((frame for frame in incident.frames if frame.is_user), None)
    for origin in _FRAME_PREFERENCE[entry.locate if entry else Locate.RAISE]:
        frame = _last_user_frame(incident.frames, origin)
        if frame is not None:
            return frame
    return None


def _last_user_frame(frames: tuple[Frame, ...], origin: FrameOrigin) -> Frame | None:
    """The most recent call among user frames of `origin` (tracebacks list it last)."""
    return next(
        (frame for frame in reversed(frames) if frame.is_user and frame.origin is origin), None
    )


def _refined_rule(entry: Entry, finding_codes: list[str]) -> str | None:
    """The entry's rule, unless the code shows another of its possible causes instead."""
    if entry.rule in finding_codes:
        return entry.rule
    return next((code for code in finding_codes if code in entry.also_rules), entry.rule)


def _cause(entry: Entry, values: dict[str, str], findings: list[Finding]) -> str:
    cause = fill(entry.cause, values)
    related = next((finding for finding in findings if finding.code in entry.rules), None)
    if related is not None:  # the static analyzer names the construct that causes it
        cause += f"\n\nIn your code: {related.path}:{related.span.line}: {related.code} {related.message}"
    return cause


def _exception_info(incident: Incident, notes: list[str]) -> ExceptionInfo | None:
    if not incident.type and not incident.message:
        notes.append("the traceback ends before its exception line (a truncated paste?)")
        return None
    return ExceptionInfo(incident.type, incident.message, incident.qualified_type)


def _generic_title(incident: Incident) -> str:
    if incident.kind is IncidentKind.WARNING:
        return "Unrecognised warning"
    return f"Unrecognised {incident.type or 'error (the traceback is cut before its message)'}"


def _generic_summary(incident: Incident) -> str:
    first_line = incident.message.split("\n", 1)[0] if incident.message else ""
    where = f" (reported by Keras for layer `{incident.layer.type}`)" if incident.layer else ""
    if incident.kind is IncidentKind.WARNING:
        return f"{incident.qualified_type}: {first_line}"
    return f"{incident.type or 'An exception'} was raised{where}: {first_line}".rstrip(": ")
