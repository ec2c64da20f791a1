"""`check --fix` and `--diff`: the findings' safe fixes applied to their files, each file in
one step, or shown as a unified diff without touching the file.

A notebook's fixes are applied cell by cell (their edits are in cell terms) and only those
cells' sources are rewritten; every other byte of the file stays as it was
(`Notebook.with_sources`). A fix that spans cells is left to the user.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tf_insight.check.fixes import apply_fixes
from tf_insight.check.notebook import NotebookError
from tf_insight.check.source import SourceFile, write_source
from tf_insight.files import read_text, write_atomically
from tf_insight.findings import Finding, Fix


@dataclass
class Fixed:
    """What fixing a file did (or would do): its text before and after, the findings whose
    fixes were applied, and the error that kept it from being fixed."""

    path: str
    before: str = ""
    after: str = ""
    applied: list[Finding] | None = None
    error: str | None = None


def fix_findings(findings: Sequence[Finding], write: bool,
                 read: Callable[[str], SourceFile] = SourceFile.read) -> list[Fixed]:
    """Each file with fixable findings, fixed (written back when `write`)."""
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is not None:
            by_path.setdefault(finding.path, []).append(finding)
    results = []
    for path, fixable in by_path.items():
        try:
            result = _fixed(path, read(path), fixable)
            if write and result.after != result.before:
                if path.endswith(".ipynb"):
                    write_atomically(path, result.after.encode("utf-8"))
                else:
                    write_source(path, result.after)
        except (OSError, UnicodeError, NotebookError) as error:
            result = Fixed(path, error=str(error))
        results.append(result)
    return results


def _fixed(path: str, source: SourceFile, findings: list[Finding]) -> Fixed:
    fixes = [(f, f.fix) for f in findings if f.fix is not None]
    if source.notebook is None:
        after, applied = _apply(source.text, fixes)
        return Fixed(path, source.text, after, applied)
    by_cell: dict[int, list[tuple[Finding, Fix]]] = {}
    for finding, fix in fixes:
        cells = {edit.cell for edit in fix.edits}
        cell = cells.pop() if len(cells) == 1 else None
        if cell is not None:
            by_cell.setdefault(cell, []).append((finding, fix))
    sources, applied = {}, []
    for cell, cell_fixes in by_cell.items():
        sources[cell], done = _apply(source.notebook.cell_source(cell), cell_fixes)
        applied += done
    before = read_text(path)
    return Fixed(path, before, source.notebook.with_sources(sources) if sources else before,
                 applied)


def _apply(text: str, fixes: list[tuple[Finding, Fix]]) -> tuple[str, list[Finding]]:
    """The text with the fixes that do not overlap an earlier one, and their findings (a fix
    is applied when adding it to those before it adds one to the count)."""
    counts = [apply_fixes(text, [fix for _, fix in fixes[:end]])[1]
              for end in range(len(fixes) + 1)]
    applied = [finding for (finding, _), (before, after)
               in zip(fixes, itertools.pairwise(counts), strict=True) if after > before]
    return apply_fixes(text, [fix for _, fix in fixes])[0], applied


def unified_diff(fixed: Fixed) -> str:
    """The change as `diff -u` shows it (`--- a/path`, `+++ b/path`)."""
    return "".join(difflib.unified_diff(
        fixed.before.splitlines(keepends=True), fixed.after.splitlines(keepends=True),
        fromfile=f"a/{fixed.path}", tofile=f"b/{fixed.path}"))
