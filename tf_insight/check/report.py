"""Findings as text (like ruff: `path:line:col: CODE message`, in a notebook
`nb.ipynb:cell 3:2:5: …`), JSON or SARIF 2.1.0.

Columns are 1-based in every format here (internally they are 0-based characters).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tf_insight import __version__
from tf_insight.check import rules
from tf_insight.findings import Finding, Span

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def as_text(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        fixable = " [*]" if f.fix else ""
        cell = f"cell {f.cell}:" if f.cell is not None else ""
        lines.append(f"{f.path}:{cell}{f.span.line}:{f.span.column + 1}: {f.code}{fixable} "
                     f"{f.message}")
    return "\n".join(lines)


def as_json(findings: Sequence[Finding]) -> str:
    return json.dumps([f.to_dict() for f in findings], indent=2)


def statistics(findings: Sequence[Finding]) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter(f.code for f in findings if f.fix)
    return "\n".join(
        f"{count:5d}  {code}  {name}{'  [*]' if fixable[code] else ''}"
        for (code, name), count in counts.most_common()
    )


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
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": index.get(f.code, -1),
            "level": SARIF_LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [_location(f.path, f.span)],
        }
        if f.related:
            result["relatedLocations"] = [
                {**_location(r.path, r.span), "message": {"text": r.message}} for r in f.related
            ]
        if f.fix is not None:
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


def _location(path: str, span: Span) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": _uri(path)}, "region": _region(span)}}
