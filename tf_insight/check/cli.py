"""`tf-insight check`, `tf-insight rule CODE` and `tf-insight rules`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tf_insight import config as config_module
from tf_insight.check import parallel, report, rules
from tf_insight.check.analyzer import analyze_source, iter_python_files, unreadable_analysis
from tf_insight.check.fixes import apply_fixes
from tf_insight.check.importers import importers_of
from tf_insight.check.notebook import Notebook, NotebookError
from tf_insight.check.project import Project, project_root
from tf_insight.check.source import SourceFile, write_source
from tf_insight.config import Config, ConfigError
from tf_insight.files import write_atomically
from tf_insight.findings import Finding, Fix
from tf_insight.text import printable


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="find graph-mode hazards in Python files")
    check.add_argument("paths", nargs="*", type=Path, default=[Path(".")],
                       help="files or folders (default: .)")
    check.add_argument("--output-format", "--format", dest="format", default="full",
                       choices=("full", "concise", "text", "json", "sarif"),
                       help="full (default): each finding with its source line; concise: one "
                       "line each (text is full); json; sarif (GitHub code scanning)")
    check.add_argument("--output-file", "-o", type=Path,
                       help="write the report to this file instead of the standard output")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when there are findings (2 still means an error)")
    check.add_argument("--select", help="comma-separated codes or prefixes to enable")
    check.add_argument("--ignore", help="comma-separated codes or prefixes to disable")
    check.add_argument("--keras", choices=config_module.KERAS_SETTINGS,
                       help="Keras the code runs on (default: inferred from imports)")
    check.add_argument("--python", type=lambda value: config_module.interpreter_path(
                           value, Path.cwd()),
                       help="interpreter whose packages jedi resolves names in "
                       "(a project's pyproject.toml cannot choose it: see SECURITY.md)")
    check.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                       help="worker processes (default: one per core; 1: none); the result "
                       "is the same")
    check.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    check.add_argument("--statistics", action="store_true", help="count findings per rule")
    check.set_defaults(func=run_check)

    rule = subparsers.add_parser("rule", help="show a rule's documentation")
    rule.add_argument("code", help="rule code or name, e.g. TFI001")
    rule.set_defaults(func=run_rule)

    listing = subparsers.add_parser("rules", help="list all rules")
    listing.add_argument("--format", choices=("text", "markdown", "docs"), default="text",
                         help="markdown: the README's table; docs: every rule's documentation")
    listing.set_defaults(func=run_rules)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run_check(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        print(f"tf-insight: no such file or folder: {printable(', '.join(map(str, missing)))}",
              file=sys.stderr)
        return 2
    try:
        groups, unreadable = _files_by_project(args)
    except ConfigError as error:
        print(f"tf-insight: {printable(str(error))}", file=sys.stderr)
        return 2
    findings = list(unreadable)
    problems = 0
    notes: list[str] = []
    for project, files in groups.values():
        for analysis in parallel.check_paths(files, project, importers_of(files, project),
                                             args.jobs):
            findings.extend(analysis.findings)
            for problem in analysis.errors:
                print(f"tf-insight: {printable(problem)}", file=sys.stderr)
                problems += 1
            notes.extend(analysis.notes)
    findings.sort(key=Finding.sort_key)
    if args.fix:
        findings = _apply(findings)
    output = {"full": report.as_text, "text": report.as_text, "concise": report.as_concise,
              "json": report.as_json, "sarif": report.as_sarif}
    text = output[args.format](findings)
    if args.output_file is not None:
        try:
            args.output_file.write_text(text + "\n" if text else "", encoding="utf-8")
        except OSError as error:
            print(f"tf-insight: cannot write {args.output_file}: {error}", file=sys.stderr)
            return 2
    elif text:
        print(text)
    if args.statistics:
        print(report.statistics(findings))
        for project, _files in groups.values():
            keras = project.keras.for_tf_keras()
            flavor = project.config.keras if project.config.keras != "auto" else keras.flavor
            why = "the keras setting" if project.config.keras != "auto" else keras.reason
            print(printable(f"Keras {flavor} for {project.root}: {why}"))
    for note in dict.fromkeys(notes):
        print(f"tf-insight: note: {printable(note)}", file=sys.stderr)
    if args.format in ("full", "text", "concise") and not args.statistics:
        fixable = sum(1 for f in findings if f.fix)
        summary = f"Found {len(findings)} finding{'s' * (len(findings) != 1)}"
        summary += f" ({fixable} fixable with --fix)." if fixable else "."
        print(summary if findings else "All checks passed!", file=sys.stderr)
    return 1 if (findings and not args.exit_zero) or problems else 0


def _files_by_project(args: argparse.Namespace) -> tuple[
        dict[Path, tuple[Project, list[Path]]], list[Finding]]:
    """The files to check, grouped by the project each belongs to (`project_root`), each
    project with its own settings: what a file gets does not depend on which paths, or in
    which order, the command was given."""
    projects: dict[Path, Project] = {}
    groups: dict[Path, tuple[Project, list[Path]]] = {}
    unreadable: list[Finding] = []  # folders that could not be listed

    def project(root: Path) -> Project:
        if root not in projects:
            config = config_module.load(root).merged(
                select=args.select, ignore=args.ignore, keras=args.keras, python=args.python)
            if config.ignored_settings:
                print(f"tf-insight: not reading the settings of "
                      f"{printable(config.ignored_settings)}",
                      file=sys.stderr)
            if config.ignored_python and args.python is None:
                print(f"tf-insight: not running the interpreter "
                      f"{printable(config.ignored_python)}: a "
                      "project's settings do not choose what tf-insight runs. Pass --python, "
                      f"or set `python` in {config_module.user_config_path()}.",
                      file=sys.stderr)
            projects[root] = Project(config=config, root=root)
        return projects[root]

    roots: dict[Path, Path] = {}  # folder -> its project root
    for argument in args.paths:
        config = project(project_root(argument)).config
        errors: list[OSError] = []
        for file in iter_python_files([argument], config, errors):
            folder = file.parent
            if folder not in roots:
                roots[folder] = project_root(file)
            owner = project(roots[folder])
            groups.setdefault(roots[folder], (owner, []))[1].append(file)
        unreadable += [f for error in errors for f in unreadable_analysis(error, config).findings]
    return dict(sorted(groups.items())), unreadable


def _apply(findings: list[Finding]) -> list[Finding]:
    """Fix files in place, each in one step; return what is left to fix by hand (with the
    findings of a file that could not be rewritten, which is left as it was)."""
    remaining: list[Finding] = []
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, found in by_path.items():
        fixes = [f.fix for f in found if f.fix is not None]
        if not fixes:
            remaining.extend(found)
            continue
        try:
            applied = _fix_file(path, fixes)
        except (OSError, UnicodeError, NotebookError) as error:
            print(f"tf-insight: not fixing {printable(path)}: {printable(str(error))}; the file is "
                  "unchanged", file=sys.stderr)
            remaining.extend(found)
            continue
        print(f"tf-insight: fixed {applied} finding(s) in {printable(path)}", file=sys.stderr)
        remaining.extend(f for f in found if f.fix is None)
    return remaining


def _fix_file(path: str, fixes: list[Fix]) -> int:
    source = SourceFile.read(path)
    if source.notebook is not None:
        return _fix_notebook(path, source.notebook, fixes)
    text, applied = apply_fixes(source.text, fixes)
    write_source(path, text)
    return applied


def _fix_notebook(path: str, notebook: Notebook, fixes: list[Fix]) -> int:
    """Apply fixes cell by cell (their edits are in cell terms) and rewrite only those cells'
    sources; every other byte of the file stays as it was (`Notebook.with_sources`)."""
    by_cell: dict[int, list[Fix]] = {}
    for fix in fixes:
        cells = {edit.cell for edit in fix.edits}
        cell = cells.pop() if len(cells) == 1 else None
        if cell is not None:  # a fix that spans cells is left to the user
            by_cell.setdefault(cell, []).append(fix)
    sources, applied = {}, 0
    for cell, cell_fixes in by_cell.items():
        sources[cell], count = apply_fixes(notebook.cell_source(cell), cell_fixes)
        applied += count
    write_atomically(path, notebook.with_sources(sources).encode("utf-8"))
    return applied


def run_rule(args: argparse.Namespace) -> int:
    rule = rules.get(args.code)
    if rule is None:
        print(f"tf-insight: unknown rule {args.code!r}; `tf-insight rules` lists them",
              file=sys.stderr)
        return 2
    print(rule.markdown())
    return 0


def run_rules(args: argparse.Namespace) -> int:
    if args.format == "markdown":
        print(rules_table())
    elif args.format == "docs":
        print(rules_document())
    else:
        print("\n".join(f"{rule.code}  {rule.name:32}  {rule.title}" for rule in rules.RULES))
    return 0


def rules_document() -> str:
    """docs/rules.md: every rule's documentation, one section per code (diagnostics link to
    these anchors)."""
    parts = ["# TF Insight rules", "",
             "Generated from the rules' docstrings by `tf-insight rules --format docs`.", ""]
    for rule in rules.RULES:
        parts += [f'<a id="{rule.code.lower()}"></a>', "", rule.markdown(level=2), ""]
    return "\n".join(parts)


def rules_table() -> str:
    """The rule table of the README, from the rules' docstrings."""
    rows = ["| code | name | severity | what it finds | fix |", "|---|---|---|---|---|"]
    for rule in rules.RULES:
        selected = Project(config=Config(extend_select=(rule.code,)))
        example = analyze_source(rule.code_example("Example"), "example.py", selected).findings
        fixable = "yes" if any(f.fix for f in example if f.code == rule.code) else ""
        severity = rule.severity.value + ("" if rule.default else " (opt-in)")
        rows.append(f"| {rule.code} | `{rule.name}` | {severity} | {rule.title} | {fixable} |")
    return "\n".join(rows)
