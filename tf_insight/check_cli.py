"""`tf-insight check`, `tf-insight rule CODE` and `tf-insight rules`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tf_insight import config as config_module
from tf_insight import report, rules
from tf_insight.analyzer import analyze_source, check_paths
from tf_insight.config import ConfigError
from tf_insight.findings import Finding
from tf_insight.fixes import apply_fixes
from tf_insight.project import Project
from tf_insight.source import SourceFile, write_source


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="find graph-mode hazards in Python files")
    check.add_argument("paths", nargs="*", type=Path, default=[Path(".")],
                       help="files or folders (default: .)")
    check.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    check.add_argument("--select", help="comma-separated codes or prefixes to enable")
    check.add_argument("--ignore", help="comma-separated codes or prefixes to disable")
    check.add_argument("--keras", choices=config_module.KERAS_SETTINGS,
                       help="Keras the code runs on (default: inferred from imports)")
    check.add_argument("--python", type=lambda value: config_module.interpreter_path(
                           value, Path.cwd()),
                       help="interpreter whose packages jedi resolves names in "
                       "(a project's pyproject.toml cannot choose it: see SECURITY.md)")
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


def run_check(args: argparse.Namespace) -> int:
    missing = [p for p in args.paths if not p.exists()]
    if missing:
        print(f"tf-insight: no such file or folder: {', '.join(map(str, missing))}",
              file=sys.stderr)
        return 2
    try:
        config = config_module.load(args.paths[0]).merged(
            select=args.select, ignore=args.ignore, keras=args.keras, python=args.python)
    except ConfigError as error:
        print(f"tf-insight: {error}", file=sys.stderr)
        return 2
    if config.ignored_python and args.python is None:
        print(f"tf-insight: not running the interpreter {config.ignored_python}: a project's "
              "settings do not choose what tf-insight runs. Pass --python, or set `python` in "
              f"{config_module.user_config_path()}.", file=sys.stderr)
    root = args.paths[0] if args.paths[0].is_dir() else args.paths[0].parent
    project = Project(config=config, root=root.resolve())
    findings: list[Finding] = []
    problems = 0
    for analysis in check_paths(args.paths, project):
        findings.extend(analysis.findings)
        for problem in analysis.errors:
            print(f"tf-insight: {problem}", file=sys.stderr)
            problems += 1
    if args.fix:
        findings = _apply(findings)
    output = {"text": report.as_text, "json": report.as_json, "sarif": report.as_sarif}
    text = output[args.format](findings)
    if text:
        print(text)
    if args.statistics:
        print(report.statistics(findings))
    if args.format == "text" and not args.statistics:
        fixable = sum(1 for f in findings if f.fix)
        summary = f"Found {len(findings)} finding{'s' * (len(findings) != 1)}"
        summary += f" ({fixable} fixable with --fix)." if fixable else "."
        print(summary if findings else "All checks passed!", file=sys.stderr)
    return 1 if findings or problems else 0


def _apply(findings: list[Finding]) -> list[Finding]:
    """Fix files in place; return what is left to fix by hand."""
    remaining: list[Finding] = []
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, found in by_path.items():
        fixes = [f.fix for f in found if f.fix is not None]
        if fixes:
            text, applied = apply_fixes(SourceFile.read(path).text, fixes)
            write_source(path, text)
            print(f"tf-insight: fixed {applied} finding(s) in {path}", file=sys.stderr)
        remaining.extend(f for f in found if f.fix is None)
    return remaining


def run_rule(args: argparse.Namespace) -> int:
    rule = rules.get(args.code)
    if rule is None:
        print(f"tf-insight: unknown rule {args.code!r}; `tf-insight rules` lists them",
              file=sys.stderr)
        return 2
    print(f"# {rule.code} {rule.name} ({rule.severity.value})\n\n{rule.doc}")
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
        body = "#" + rule.doc[rule.doc.find("## "):].replace("\n## ", "\n### ")
        parts += [f'<a id="{rule.code.lower()}"></a>',
                  f"## {rule.code} {rule.name} ({rule.severity.value})", "",
                  rule.title, "", body, ""]
    return "\n".join(parts)


def rules_table() -> str:
    """The rule table of the README, from the rules' docstrings."""
    rows = ["| code | name | severity | what it finds | fix |", "|---|---|---|---|---|"]
    for rule in rules.RULES:
        example = analyze_source(rule.code_example("Example"), "example.py").findings
        fixable = "yes" if any(f.fix for f in example if f.code == rule.code) else ""
        rows.append(f"| {rule.code} | `{rule.name}` | {rule.severity.value} | {rule.title} "
                    f"| {fixable} |")
    return "\n".join(rows)
