"""`explain` on the paste corpus: real TF output (`pastes/`, made by `pastes/make.py`) in the
shapes users paste it.

Each stored paste is what one environment printed (terminal or Jupyter, TF 2.21 or 2.15,
Keras 3 or 2); `manifest.json` says what explaining it must give. The shapes below are what
copying does to such text on its way into an issue, a chat or our command palette. The run
prints, per shape and per environment, how many graph-mode errors were recognised, with the
right entry and the right user frame, and how many pastes got a confident wrong diagnosis.

    .venv/bin/python -m tests.explain.test_pastes     # the report alone
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.explain.cases import OLD_TF_CASES
from tf_insight.explain import explain
from tf_insight.explain.catalogue import get_entry
from tf_insight.explain.explanation import Explanation

PASTES = Path(__file__).parent / "pastes"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The line an exception's message starts on: `ValueError: ...`, `tensorflow.python.….Error: ...`.
ERROR_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Warning)\b:? ", re.M)


def copied(text: str) -> str:
    """What selecting the output in a browser or terminal gives: no colour codes."""
    return ANSI.sub("", text)


WARNING_LINE = re.compile(r"^(?:WARNING:\w[\w.]*:|W\d{4} |\S.*:\d+: \w*Warning: )", re.M)


WRAPPER = re.compile(r"Exception encountered when calling|in user code:$|Graph execution error:$"
                     r"|Error encountered:$|^Detected at node|^File |^\S+\.py\b")


def error_line(text: str) -> str:
    """The one line users quote: `Type: message` of the innermost error, behind AutoGraph's
    "in user code:", Keras's "Exception encountered when calling" and "Error encountered:",
    else a warning's first line."""
    text = copied(text)
    starts = list(ERROR_LINE.finditer(text))
    if not starts:
        warning = WARNING_LINE.search(text)
        return text[warning.start():].split("\n", 1)[0] if warning else ""
    block = text[starts[-1].start():].replace("[1m", "").replace("[0m", "")
    lines = [line.strip() for line in block.split("\n")]
    inner = [number for number, line in enumerate(lines) if number and ERROR_LINE.match(line)
             and block.split("\n")[number][:1].isspace()]
    start = inner[-1] if inner else 0
    error_type, _, message = lines[start].partition(": ")
    following = (line for line in lines[start + 1:] if line and not line.startswith("File "))
    while WRAPPER.search(message) or message.endswith("Error encountered:"):
        message = next(following, "")
        message = message.rsplit("Error encountered:", 1)[-1].strip() or message
        if not message:
            break
    return f"{error_type}: {message}"


def error_block(text: str) -> str:
    """The last exception's message (or the first warning), from its first line to the end."""
    text = copied(text)
    starts = list(ERROR_LINE.finditer(text)) or list(WARNING_LINE.finditer(text))[:1]
    return text[starts[-1].start():] if starts else ""


def last_lines(count: int) -> Callable[[str], str]:
    def shape(text: str) -> str:
        return "\n".join(copied(text).rstrip("\n").split("\n")[-count:])
    return shape


def quoted(text: str) -> str:
    return "".join(f"> {line}\n" for line in copied(text).split("\n"))


def wrapped(width: int) -> Callable[[str], str]:
    """Hard line breaks every `width` characters, inside words too (terminals, trackers)."""
    def shape(text: str) -> str:
        return "\n".join(
            "\n".join(textwrap.wrap(line, width, break_long_words=True, drop_whitespace=False,
                                    break_on_hyphens=False) or [""])
            for line in copied(text).split("\n"))
    return shape


def fenced(text: str) -> str:
    return "```python\n" + copied(text).strip("\n") + "\n```\n"


def crlf(text: str) -> str:
    return copied(text).replace("\n", "\r\n")


def full_width_colon(text: str) -> str:
    """An input method's colon after `Traceback (most recent call last)` and the error type."""
    text = copied(text).replace("(most recent call last):", "(most recent call last)：")
    return ERROR_LINE.sub(lambda found: found[0].replace(":", "：", 1), text)


def windows_paths(text: str) -> str:
    text = copied(text).replace("/opt/venv/lib/python3.12/site-packages/",
                                "C:/Users/user/venv/Lib/site-packages/")
    text = re.sub(r"/opt/venv/lib/python3\.\d+/site-packages/",
                  "C:/Users/user/venv/Lib/site-packages/", text)
    text = text.replace("/home/user/project/", "C:/Users/user/project/")
    return re.sub(r'File "(C:/[^"]+)"', lambda found: 'File "' + found[1].replace("/", "\\") + '"',
                  text)


# Shapes of damage seen in real users' pastes (`bench/real_pastes/`), made from our own output.
HEADER_LINE = re.compile(r"^.*Traceback \(most recent call last\).*\n(?:-{20,}\n)?", re.M)
SEPARATOR_LINE = re.compile(r"^-{20,}\n", re.M)
TRACEBACK_HEADER = "Traceback (most recent call last):"


def without_header(text: str) -> str:
    """A paste that starts mid-stack, or an IPython fragment: no `Traceback` header line."""
    return HEADER_LINE.sub("", SEPARATOR_LINE.sub("", copied(text)))


def glued_fence(text: str) -> str:
    """Fences typed against the text: ```` ```Traceback (...) ```` ... ```` message.``` ````."""
    return "```" + copied(text).strip("\n") + "```\n"


def bold(text: str) -> str:
    """The header and the error line set in Markdown bold."""
    return re.sub(r"^((?:Traceback \(most recent call last\):|[A-Za-z_][\w.]*Error: ).*)$",
                  r"**\1**", copied(text), flags=re.M)


def lost_indentation(text: str) -> str:
    """Every line at column 0 (a tracker or a chat that drops leading spaces)."""
    return "\n".join(line.lstrip() for line in copied(text).split("\n"))


def indented(text: str) -> str:
    """A Markdown indented code block: every line four spaces in."""
    return "".join(f"    {line}\n" for line in copied(text).split("\n"))


def flattened(text: str) -> str:
    """The whole paste run onto one quoted line (a tracker that dropped the newlines)."""
    return "> " + " ".join(line.strip() for line in copied(text).split("\n") if line.strip())


def header_after_progress_bar(text: str) -> str:
    """Keras's progress bar, without its newline, glued to the traceback header."""
    return copied(text).replace(TRACEBACK_HEADER,
                                "2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step" + TRACEBACK_HEADER, 1)


def json_string(text: str) -> str:
    """A notebook error exported as JSON (VS Code): the output in an escaped string."""
    return '{\n\t"name": "Error",\n\t"message": ' + json.dumps(copied(text)) + "\n}\n"


@cache
def another_error() -> str:
    """A non-graph traceback pasted before the real one."""
    return copied((PASTES / "terminal-tf2.21-keras3/not_graph_errors-key_error.txt").read_text())


def after_another_error(text: str) -> str:
    return another_error() + "\n" + copied(text)


@dataclass(frozen=True)
class Shape:
    name: str
    make: Callable[[str], str]
    keeps_frames: bool  # the user frame must still be found
    # False: the shape drops Keras's and TensorFlow's wrapper text, so entries that know
    # only the wrapper ("Graph execution error") have nothing left to recognise.
    keeps_wrappers: bool = True


SHAPES = [
    Shape("as printed", lambda text: text, True),
    Shape("copied", copied, True),
    Shape("error line", error_line, False, keeps_wrappers=False),
    Shape("error message", error_block, False),
    Shape("last 10 lines", last_lines(10), False),
    Shape("quoted", quoted, True),
    Shape("wrapped at 80", wrapped(80), True),
    Shape("wrapped at 60", wrapped(60), True),
    Shape("fenced", fenced, True),
    Shape("CRLF", crlf, True),
    Shape("full-width colon", full_width_colon, True),
    Shape("Windows paths", windows_paths, True),
    Shape("after another error", after_another_error, True),
    Shape("no header", without_header, True),
    Shape("glued fence", glued_fence, True),
    Shape("bold", bold, True),
    Shape("lost indentation", lost_indentation, True),
    Shape("indented", indented, True),
    Shape("flattened", flattened, True, keeps_wrappers=False),
    Shape("header after progress bar", header_after_progress_bar, True),
    Shape("JSON string", json_string, True),
]


@dataclass(frozen=True)
class Paste:
    name: str  # "<environment>/<file>"
    text: str
    entry: str | None  # None: not a graph-mode error (a negative)
    script: str
    line: int | None
    cell: bool

    @property
    def environment(self) -> str:
        return self.name.split("/", 1)[0]


@cache
def corpus() -> tuple[Paste, ...]:
    manifest: dict[str, dict[str, Any]] = json.loads((PASTES / "manifest.json").read_text())
    return tuple(
        Paste(name, (PASTES / name).read_text(), expected["entry"], expected["script"],
              expected["line"], expected["cell"])
        for name, expected in manifest.items() if (PASTES / name).exists())


def right_frame(explanation: Explanation, paste: Paste) -> bool:
    frame = explanation.user_frame
    if frame is None or paste.line is None:
        return False
    if paste.cell:
        return frame.cell is not None and frame.line == paste.line
    return re.split(r"[\\/]", frame.path)[-1] == paste.script and frame.line == paste.line


@dataclass
class Tally:
    positives: int = 0
    recognised: int = 0
    right_entry: int = 0
    frames_expected: int = 0
    right_frame: int = 0
    negatives: int = 0
    wrong: int = 0  # a confident diagnosis other than the expected one (or any, on a negative)

    def add(self, paste: Paste, shape: Shape, explanation: Explanation,
            wrong: list[str]) -> None:
        confident = explanation.recognised and explanation.confidence != "low"
        if paste.entry is None:
            self.negatives += 1
            if confident:
                self.wrong += 1
                wrong.append(f"{shape.name}: {paste.name} -> {explanation.id}")
            return
        if not shape.keeps_wrappers and get_entry(paste.entry).generic:
            return
        self.positives += 1
        self.recognised += explanation.recognised
        self.right_entry += explanation.id == paste.entry
        if explanation.id != paste.entry and confident:
            self.wrong += 1
            wrong.append(f"{shape.name}: {paste.name} -> {explanation.id} "
                         f"(expected {paste.entry})")
        if shape.keeps_frames and paste.line is not None:
            self.frames_expected += 1
            self.right_frame += right_frame(explanation, paste)

    def row(self, label: str) -> str:
        def share(part: int, whole: int) -> str:
            return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"
        return (f"{label:<24} {share(self.recognised, self.positives):>16} "
                f"{share(self.right_entry, self.positives):>16} "
                f"{share(self.right_frame, self.frames_expected):>16} "
                f"{self.wrong:>4} of {self.positives + self.negatives}")


@dataclass
class Report:
    total: Tally
    by_shape: dict[str, Tally]
    by_environment: dict[str, Tally]
    wrong: list[str]
    missed: list[str]

    def text(self) -> str:
        header = (f"{'':<24} {'recognised':>16} {'right entry':>16} {'right user frame':>16} "
                  "confidently wrong")
        lines = [f"{len(corpus())} pastes x {len(SHAPES)} shapes", header,
                 self.total.row("all")]
        lines += [tally.row(name) for name, tally in self.by_shape.items()]
        lines += [tally.row(name) for name, tally in self.by_environment.items()]
        lines += ["confidently wrong:", *self.wrong[:40]]
        lines += [f"missed ({len(self.missed)}):", *self.missed[:60]]
        return "\n".join(lines)


@cache
def measure() -> Report:
    total, wrong, missed = Tally(), [], []
    by_shape = {shape.name: Tally() for shape in SHAPES}
    by_environment: dict[str, Tally] = {}
    for paste in corpus():
        for shape in SHAPES:
            explanation = explain(shape.make(paste.text))
            for tally in (total, by_shape[shape.name],
                          by_environment.setdefault(paste.environment, Tally())):
                tally.add(paste, shape, explanation, wrong if tally is total else [])
            expected = paste.entry and (shape.keeps_wrappers
                                        or not get_entry(paste.entry).generic)
            if expected and explanation.id != paste.entry:
                missed.append(f"{shape.name}: {paste.name} -> {explanation.id}")
    return Report(total, by_shape, by_environment, wrong, missed)


def test_old_tf_cases_are_in_the_corpus() -> None:
    """The cases the suite cannot run (no old TF here) have their real output stored."""
    stored = {(paste.script, paste.entry) for paste in corpus()}
    assert {(case.script, case.entry) for case in OLD_TF_CASES} <= stored


def test_corpus_is_large_and_varied() -> None:
    pastes = corpus()
    families = {paste.entry for paste in pastes if paste.entry}
    environments = {paste.environment for paste in pastes}
    assert len(pastes) >= 150
    assert len(families) >= 25
    assert sum(paste.entry is None for paste in pastes) >= 30
    assert {"terminal-tf2.21-keras3", "terminal-tf2.15", "terminal-tf2.4", "ipython8-tf2.21",
            "ipython7-tf2.15"} <= environments


@pytest.mark.slow
def test_graph_mode_errors_are_recognised() -> None:
    report = measure()
    print(report.text())
    assert report.total.recognised >= 0.95 * report.total.positives
    assert report.total.right_frame >= 0.95 * report.total.frames_expected


@pytest.mark.slow
def test_never_confidently_wrong() -> None:
    report = measure()
    assert report.wrong == []


if __name__ == "__main__":
    print(measure().text())
