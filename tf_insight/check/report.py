"""Findings as text (like ruff: `path:line:col: CODE message`, in a notebook
`nb.ipynb:cell 3:2:5: …`), JSON, SARIF 2.1.0, GitHub workflow annotations, GitLab Code Quality
JSON or JUnit XML; and their statistics (a table, or JSON).

Columns are 1-based in every format here (internally they are 0-based characters). In SARIF a
notebook finding's region is in the `.ipynb` file as stored (what code scanning shows), with
the cell and the region in the cell under `properties`; its fix is left out there (a fix would
have to edit the JSON text of the file).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree

from tf_insight import __version__
from tf_insight.check import rules
from tf_insight.check.notebook import FilePositions
from tf_insight.check.source import SourceFile, split_lines
from tf_insight.files import read_regular
from tf_insight.findings import Finding, Span
from tf_insight.text import printable

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def as_concise(findings: Sequence[Finding]) -> str:
    """One line per finding: `path:line:col: CODE [*] message`."""
    return "\n".join(_headline(f) for f in findings)


def as_text(findings: Sequence[Finding]) -> str:
    """Each finding's line, then the source line it is on with a caret range under the span
    (as ruff shows it; findings whose file cannot be read again get the line alone), then why
    it goes wrong, what to do and the other places involved (`= note:`, `= help:`,
    `= related:`, as rustc and ruff show them)."""
    sources: dict[str, SourceFile | None] = {}  # each file read once, whatever its findings
    blocks = []
    for f in findings:
        if f.path not in sources:
            sources[f.path] = _read(f.path)
        lines = _lines(sources[f.path], f.cell)
        notes = [printable(f"  = {label}: {text}")
                 for label, text in (("note", f.detail), ("help", f.help_text)) if text]
        notes += [printable(f"  = related: {_place(r.path, r.cell, r.span)}: {r.message}")
                  for r in f.related]
        blocks.append("\n".join([_headline(f), *_excerpt(lines, f.span), *notes]))
    return "\n\n".join(blocks)


def _headline(f: Finding) -> str:
    fixable = " [*]" if f.fix else ""
    return printable(f"{_place(f.path, f.cell, f.span)}: {f.code}{fixable} {f.message}")


def _place(path: str, cell: int | None, span: Span) -> str:
    """`path:line:column` (in a notebook `path:cell N:line:column`), 1-based."""
    cell_part = f"cell {cell}:" if cell is not None else ""
    return f"{path}:{cell_part}{span.line}:{span.column + 1}"


def _read(path: str) -> SourceFile | None:
    try:
        return SourceFile.read(path)
    except OSError:
        return None


def _lines(source: SourceFile | None, cell: int | None) -> list[str]:
    if source is None:
        return []
    if cell is not None and source.notebook is not None:
        return split_lines(source.notebook.cell_source(cell))
    return source.lines


def _excerpt(lines: list[str], span: Span) -> list[str]:
    """The span's line with a caret range under it; control characters escaped (the caret
    follows what is shown)."""
    if not 0 < span.line <= len(lines) or not lines[span.line - 1].strip():
        return []
    line = lines[span.line - 1]
    end = span.end_column if span.end_line == span.line else len(line)

    def shown(text: str) -> str:
        return printable(text, tabs=True).expandtabs(4)

    text = shown(line)
    start, stop = len(shown(line[:span.column])), len(shown(line[:max(end, span.column)]))
    width = max(1, min(stop, len(text)) - start)
    gutter = " " * len(str(span.line))
    return [f"{gutter} |", f"{span.line} | {text}", f"{gutter} | {' ' * start}{'^' * width}"]


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2)


def statistics(findings: Sequence[Finding]) -> str:
    """How many findings of each rule, most first: `count  CODE  name  [*]` ([*]: fixable)."""
    return "\n".join(
        f"{row['count']:5d}  {row['code']}  {row['name']}{'  [*]' if row['fixable'] else ''}"
        for row in _statistics(findings))


def statistics_json(findings: Sequence[Finding]) -> str:
    return json.dumps(_statistics(findings), indent=2)


def _statistics(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fix)
    return [{"code": code, "name": name, "count": count, "fixable": bool(fixable[code])}
            for (code, name), count in counts.most_common()]


GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def as_github(findings: Sequence[Finding]) -> str:
    """GitHub Actions workflow commands: each finding an annotation on its line of the pull
    request (`::warning file=…,line=…,col=…,title=…::message`), no code scanning needed."""
    lines = []
    for f in findings:
        place = "" if f.cell is None else f"cell {f.cell}:"
        properties = {"file": f.path, "line": f.span.line, "col": f.span.column + 1,
                      "endLine": f.span.end_line, "endColumn": f.span.end_column + 1,
                      "title": f"tf-insight {f.code} ({f.name})"}
        if f.cell is not None:  # the lines count from the cell's top: no place in the file
            properties = {"file": f.path, "title": properties["title"]}
        fields = ",".join(f"{key}={_github_escape(str(value), True)}"
                          for key, value in properties.items())
        lines.append(f"::{GITHUB_LEVEL[f.severity.value]} {fields}::"
                     + _github_escape(f"{f.path}:{place}{f.span.line}:{f.span.column + 1}: "
                                      f"{f.code} {f.message}", False))
    return "\n".join(lines)


def _github_escape(text: str, property_value: bool) -> str:
    """The escapes of GitHub's workflow commands (a property value also escapes `:` and `,`)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


GITLAB_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def as_gitlab(findings: Sequence[Finding]) -> str:
    """GitLab's Code Quality report (a merge request shows it): one issue per finding, with a
    fingerprint that stays the same while the finding does (path, code, message, and which
    of its identical twins it is)."""
    issues = []
    seen: Counter[str] = Counter()
    for f in findings:
        identity = json.dumps([f.path, f.code, f.message])
        seen[identity] += 1
        fingerprint = hashlib.sha256(f"{identity}{seen[identity]}".encode()).hexdigest()
        issues.append({
            "description": f"{f.code} {f.message}",
            "check_name": f"{f.code} {f.name}",
            "fingerprint": fingerprint,
            "severity": GITLAB_SEVERITY[f.severity.value],
            "location": {"path": f.path, "lines": {"begin": f.span.line, "end": f.span.end_line}},
        })
    return json.dumps(issues, indent=2)


def as_junit(findings: Sequence[Finding]) -> str:
    """JUnit XML, as CI test reports read it: a test suite per file, a failed test case per
    finding (none at all: one passing case, so that the report is not empty)."""
    suites = ElementTree.Element("testsuites", name="tf-insight", tests=str(max(len(findings), 1)),
                                 failures=str(len(findings)), errors="0")
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        by_path.setdefault(f.path, []).append(f)
    if not by_path:
        suite = ElementTree.SubElement(suites, "testsuite", name="tf-insight", tests="1",
                                       failures="0", errors="0")
        ElementTree.SubElement(suite, "testcase", name="No findings", classname="tf-insight")
    for path, found in by_path.items():
        suite = ElementTree.SubElement(suites, "testsuite", name=path, tests=str(len(found)),
                                       failures=str(len(found)), errors="0")
        for f in found:
            place = "" if f.cell is None else f"cell {f.cell}, "
            case = ElementTree.SubElement(suite, "testcase", name=f"tf-insight.{f.code}",
                                          classname=path, line=str(f.span.line))
            failure = ElementTree.SubElement(case, "failure", message=printable(f.message),
                                             type=f.code)
            failure.text = printable(f"{place}line {f.span.line}, column {f.span.column + 1}: "
                                     f"{f.code} {f.message}")
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(
        suites, encoding="unicode")


def as_sarif(findings: Sequence[Finding]) -> str:
    catalogue = rules.RULES
    index = {rule.code: i for i, rule in enumerate(catalogue)}
    driver = {
        "name": "tf-insight",
        "version": __version__,
        "informationUri": rules.DOCS_URL.split("#")[0],
        "rules": [
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.title},
                "fullDescription": {"text": rule.summary},
                "help": {"text": rule.doc, "markdown": rule.markdown()},
                "helpUri": rule.url,
                "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity.value]},
            }
            for rule in catalogue
        ],
    }
    results = []
    location = _Locations()
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, -1),
            "level": SARIF_LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [location(f.path, f.span, f.cell)],
        }
        if f.related:
            result["relatedLocations"] = [
                {**location(r.path, r.span, r.cell), "message": {"text": r.message}}
                for r in f.related
            ]
        if f.fix is not None and f.cell is None:
            result["fixes"] = [{
                "description": {"text": f.fix.description},
                "artifactChanges": [{
                    "artifactLocation": {"uri": _uri(f.path)},
                    "replacements": [
                        {"deletedRegion": _region(e.span), "insertedContent": {"text": e.new_text}}
                        for e in f.fix.edits
                    ],
                }],
            }]
        results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(sarif, indent=2)


def _uri(path: str) -> str:
    return path.replace("\\", "/")


def _region(span: Span) -> dict[str, int]:
    return {"startLine": span.line, "startColumn": span.column + 1,
            "endLine": span.end_line, "endColumn": span.end_column + 1}


class _Locations:
    """SARIF locations; a notebook's read once, to place its cells' lines in the file."""

    def __init__(self) -> None:
        self._notebooks: dict[str, FilePositions] = {}

    def __call__(self, path: str, span: Span, cell: int | None) -> dict[str, Any]:
        region = _region(span)
        location: dict[str, Any] = {
            "physicalLocation": {"artifactLocation": {"uri": _uri(path)}, "region": region}}
        if cell is None:
            return location
        location["properties"] = {"cell": cell, "cellRegion": region}
        positions = self._notebooks.get(path)
        if positions is None:
            try:
                text = read_regular(path).decode("utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            positions = self._notebooks[path] = FilePositions(text)
        start = positions.position(cell, span.line, span.column)
        end = positions.position(cell, span.end_line, span.end_column)
        if start is not None and end is not None:
            location["physicalLocation"]["region"] = {
                "startLine": start[0], "startColumn": start[1] + 1,
                "endLine": end[0], "endColumn": end[1] + 1}
        return location
