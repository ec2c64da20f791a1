"""`tf-insight check`, `tf-insight rule CODE` and `tf-insight rules`.

`check` follows ruff's conventions: the same option names (`--select`, `--extend-ignore`,
`--output-format`, `-o/--output-file`, `--stdin-filename`, `--diff`…), repeated options add
up, a rule code that names no rule is an error (exit 2) with the nearest that does, and the
output formats are ruff's (`full`, `concise`, `json`, `sarif`, `github`, `gitlab`, `junit`).
docs/cli.md is the reference.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tf_insight import config as config_module
from tf_insight.check import analyzer, parallel, report, rules
from tf_insight.check.analyzer import Analysis, analyze_parsed, analyze_source, unreadable_analysis
from tf_insight.check.discovery import iter_python_files
from tf_insight.check.fix_files import Fixed, fix_findings, unified_diff
from tf_insight.check.importers import importers_of
from tf_insight.check.project import Project, project_root
from tf_insight.check.source import SourceFile, decode_source
from tf_insight.config import Config, ConfigError
from tf_insight.findings import Finding
from tf_insight.text import printable

CODES = tuple(rule.code for rule in rules.RULES)
FORMATS: dict[str, Callable[[Sequence[Finding]], str]] = {
    "full": report.as_text, "concise": report.as_concise, "json": report.as_json,
    "sarif": report.as_sarif, "github": report.as_github, "gitlab": report.as_gitlab,
    "junit": report.as_junit, "text": report.as_text}  # text: the old name of full
TEXT_FORMATS = ("full", "concise", "text")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = subparsers.add_parser("check", help="find graph-mode hazards in Python files",
                                  description="Find graph-mode hazards in Python files and "
                                  "notebooks (docs/cli.md: every option).",
                                  epilog="exit status: 0 no findings, 1 findings, 2 error")
    check.add_argument("paths", nargs="*", type=Path,
                       help="files or folders (default: .); - reads the standard input")
    output = check.add_argument_group("output")
    output.add_argument("--output-format", dest="format", default="full",
                        choices=tuple(FORMATS), metavar="FORMAT",
                        help="full (default): each finding with its source line; concise: one "
                        "line each; json; sarif (code scanning); github (workflow "
                        "annotations); gitlab (Code Quality); junit (XML)")
    output.add_argument("--format", dest="format", choices=tuple(FORMATS),
                        help=argparse.SUPPRESS)  # the old spelling
    output.add_argument("-o", "--output-file", type=Path, metavar="FILE",
                        help="write the report to this file instead of the standard output")
    output.add_argument("--statistics", action="store_true",
                        help="count findings per rule instead of listing them")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings and nothing else (errors still)")
    output.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings (2 still means an error)")
    selection = check.add_argument_group("rule selection (codes, prefixes or ALL; "
                                         "comma-separated, and repeatable)")
    for flag, meaning in (("--select", "enable these, instead of the settings' select"),
                          ("--extend-select", "enable these too"),
                          ("--ignore", "disable these, instead of the settings' ignore"),
                          ("--extend-ignore", "disable these too")):
        selection.add_argument(flag, action="append", type=_codes, metavar="CODES",
                               help=meaning)
    files = check.add_argument_group("files")
    files.add_argument("--exclude", action="append", type=_patterns, metavar="PATTERNS",
                       help="names or globs not to check, instead of the default list "
                       "(build, dist, site-packages, …)")
    files.add_argument("--extend-exclude", action="append", type=_patterns, metavar="PATTERNS",
                       help="names or globs not to check, besides the default list")
    files.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction,
                       default=None, help="skip what .gitignore, .ignore and "
                       ".git/info/exclude list (default: yes)")
    files.add_argument("--stdin-filename", metavar="PATH",
                       help="with -: the path the standard input's code is checked as "
                       "(its project, settings and per-file-ignores)")
    files.add_argument("--no-cache", action="store_true",
                       help="do not read or keep what the project's files import in the "
                       "user's cache folder")
    fixing = check.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    fixing.add_argument("--diff", action="store_true",
                        help="print the fixes as a diff instead of applying them (exit 1 "
                        "when there is one)")
    fixing.add_argument("--show-fixes", action="store_true",
                        help="with --fix or --diff: list what was (or would be) fixed")
    settings = check.add_argument_group("settings")
    settings.add_argument("--config", action="append", default=[], metavar="FILE_OR_SETTING",
                          help="a settings file used instead of the projects' pyproject.toml "
                          "(its [tool.tf-insight] table; the top level of another .toml), or "
                          "one setting as KEY = VALUE in TOML; repeatable")
    settings.add_argument("--keras", choices=config_module.KERAS_SETTINGS,
                          help="Keras the code runs on (default: inferred from imports)")
    settings.add_argument("--python", type=lambda value: config_module.interpreter_path(
                              value, Path.cwd()),
                          help="interpreter whose packages jedi resolves names in "
                          "(a project's pyproject.toml cannot choose it: see SECURITY.md)")
    settings.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                          help="worker processes (default: one per core; 1: none); the "
                          "result is the same")
    check.set_defaults(func=run_check)

    rule = subparsers.add_parser("rule", help="show a rule's documentation")
    rule.add_argument("code", help="rule code or name, e.g. TFI001")
    rule.set_defaults(func=run_rule)

    listing = subparsers.add_parser("rules", help="list all rules")
    listing.add_argument("--format", choices=("text", "markdown", "docs"), default="text",
                         help="markdown: the README's table; docs: every rule's documentation")
    listing.set_defaults(func=run_rules)


def _codes(text: str) -> list[str]:
    """Rule selectors, each a code, a prefix or ALL (checked against the rules, with the
    nearest one named, once they are all read)."""
    return [part.strip().upper() for part in text.split(",") if part.strip()]


def _patterns(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


class UsageError(ValueError):
    """Options that cannot work together, or a value that is wrong: exit 2, with the message."""


def run_check(args: argparse.Namespace) -> int:
    try:
        if args.fix and args.diff:
            raise UsageError("--fix writes the fixes, --diff only shows them: choose one")
        overrides = _overrides(args)
        settings_file, inline = _config_option(args.config)
        stdin = _reads_stdin(args)
        missing = [p for p in args.paths if not stdin and not p.exists()]
        if missing:
            raise UsageError(f"no such file or folder: {', '.join(map(str, missing))}")
        checker = Checker(args, settings_file, {
            **inline, **{key: value for key, value in overrides.items() if value is not None}})
        if stdin:
            return checker.check_stdin()
        return checker.check_paths()
    except (UsageError, ConfigError) as error:
        print(f"tf-insight: {printable(str(error))}", file=sys.stderr)
        return 2


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the options give, their rule codes checked (a typo is an error)."""
    def joined(values: list[list[str]] | None) -> list[str] | None:
        return None if values is None else [item for value in values for item in value]

    chosen = {flag: joined(getattr(args, flag.lstrip("-").replace("-", "_")))
              for flag in ("--select", "--extend-select", "--ignore", "--extend-ignore")}
    config_module.check_selectors(((flag, values or []) for flag, values in chosen.items()), CODES)
    return {"select": chosen["--select"], "ignore": chosen["--ignore"],
            "extend-select": chosen["--extend-select"], "extend-ignore": chosen["--extend-ignore"],
            "exclude": joined(args.exclude), "extend-exclude": joined(args.extend_exclude),
            "respect-gitignore": args.respect_gitignore, "keras": args.keras,
            "python": args.python}


def _config_option(values: list[str]) -> tuple[Path | None, dict[str, Any]]:
    """`--config`: at most one settings file, and settings written as `KEY = VALUE`."""
    settings_file: Path | None = None
    inline: dict[str, Any] = {}
    for value in values:
        if Path(value).is_file():
            if settings_file is not None:
                raise UsageError(f"--config: one settings file only, got {settings_file} and "
                                 f"{value}")
            settings_file = Path(value)
            continue
        try:
            inline.update(config_module.parse_settings(value))
        except ConfigError:
            raise UsageError(f"--config {value!r}: not a settings file, nor a setting as "
                             "KEY = VALUE (e.g. --config 'ignore = [\"TFI006\"]')") from None
    try:
        checked = config_module.from_mapping(inline, CODES)  # a typo is said here, once
    except ConfigError as error:
        raise UsageError(f"--config: {error}") from None
    if "python" in inline:  # a setting given on the command line is the user's own
        inline["python"] = config_module.interpreter_path(checked.python, Path.cwd())
    return settings_file, inline


def _reads_stdin(args: argparse.Namespace) -> bool:
    """`check -` (or `--stdin-filename` and no paths) reads the code from the standard input."""
    dash = Path("-")
    if dash in args.paths and args.paths != [dash]:
        raise UsageError("- (the standard input) cannot be checked beside other paths")
    stdin = args.paths == [dash] or (not args.paths and args.stdin_filename is not None)
    if not stdin and args.stdin_filename is not None:
        raise UsageError("--stdin-filename is for code read from the standard input (-)")
    if not args.paths:
        args.paths = [Path(".")]
    return stdin


class Checker:
    """One `check` run: the projects of its files, their settings, the report."""

    def __init__(self, args: argparse.Namespace, settings_file: Path | None,
                 overrides: dict[str, Any]) -> None:
        self.args = args
        self.settings_file = settings_file
        self.overrides = overrides
        self.projects: dict[Path, Project] = {}
        self.problems = 0
        self.notes: list[str] = []

    def say(self, message: str) -> None:
        """A note for the user on the standard error, unless --quiet."""
        if not self.args.quiet:
            print(f"tf-insight: {printable(message)}", file=sys.stderr)

    def project(self, root: Path, outer: Project | None = None) -> Project:
        """The project at `root`, with its settings (and the options on top). A project found
        inside the `outer` one being checked whose settings cannot be read (a template's
        `{{ cookiecutter.name }}` pyproject.toml) is said, and its files are checked with the
        outer project's settings: one broken file loses nothing else."""
        if root not in self.projects:
            try:
                config = config_module.load(root, codes=CODES, settings_file=self.settings_file)
            except ConfigError as error:
                if outer is None or outer.root == root:
                    raise
                # an error, not a note: said under --quiet too, as a file that cannot be read
                print(f"tf-insight: {printable(str(error))}; its files are checked with the "
                      f"settings of {outer.root}", file=sys.stderr)
                self.problems += 1
                self.projects[root] = Project(config=outer.config, root=root)
                return self.projects[root]
            extend = self.overrides.get("extend-select")  # adds to the settings' own
            config = config.merged(**{**self.overrides, "extend-select": (
                [*config.extend_select, *extend] if extend else None)})
            if config.ignored_settings:
                self.say(f"not reading the settings of {config.ignored_settings}")
            if config.ignored_python and "python" not in self.overrides:
                self.say(f"not running the interpreter {config.ignored_python}: a project's "
                         "settings do not choose what tf-insight runs. Pass --python, or set "
                         f"`python` in {config_module.user_config_path()}.")
            self.projects[root] = Project(config=config, root=root)
        return self.projects[root]

    # ---- checking ----------------------------------------------------------------------------

    def check_paths(self) -> int:
        groups, findings = self._files_by_project()
        for project, files in groups.values():
            context = importers_of(files, project, use_cache=not self.args.no_cache,
                                   jobs=self.args.jobs or parallel.default_jobs())
            for analysis in parallel.check_paths(files, project, context, self.args.jobs):
                findings.extend(self._taken(analysis))
        return self.finish(findings)

    def check_stdin(self) -> int:
        """The standard input's code, checked as the file `--stdin-filename` names (graph
        contexts from the project's modules that import it included), or as `-`."""
        name = self.args.stdin_filename or "-"
        if name.endswith(".ipynb"):
            raise UsageError("the standard input is read as Python source; check a notebook "
                             "by its path")
        try:
            text = decode_source(sys.stdin.buffer.read())
        except (SyntaxError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot decode the standard input: {error}") from None
        path = Path(name)
        project = self.project(project_root(path if name != "-" else Path.cwd()))
        if path.is_file():
            context = importers_of([path], project, use_cache=not self.args.no_cache)
            for analysis in analyzer.check_paths([], project, context):  # learn their calls
                self._taken(analysis)
        analysis = analyze_parsed(SourceFile.parse(name, text), project)
        return self.finish(self._taken(analysis), stdin=text)

    def _taken(self, analysis: Analysis) -> list[Finding]:
        for problem in analysis.errors:
            print(f"tf-insight: {printable(problem)}", file=sys.stderr)
            self.problems += 1
        self.notes.extend(analysis.notes)
        return analysis.findings

    def _files_by_project(self) -> tuple[dict[Path, tuple[Project, list[Path]]], list[Finding]]:
        """The files to check, grouped by the project each belongs to (`project_root`), each
        project with its own settings: what a file gets does not depend on which paths, or in
        which order, the command was given."""
        groups: dict[Path, tuple[Project, list[Path]]] = {}
        unreadable: list[Finding] = []  # folders that could not be listed
        roots: dict[Path, Path] = {}  # folder -> its project root
        for argument in self.args.paths:
            outer = self.project(project_root(argument))
            config = outer.config
            errors: list[OSError] = []
            for file in iter_python_files([argument], config, errors):
                folder = file.parent
                if folder not in roots:
                    roots[folder] = project_root(file)
                owner = self.project(roots[folder], outer)
                groups.setdefault(roots[folder], (owner, []))[1].append(file)
            unreadable += [f for error in errors
                           for f in unreadable_analysis(error, config).findings]
        return dict(sorted(groups.items())), unreadable

    # ---- the report --------------------------------------------------------------------------

    def finish(self, findings: list[Finding], stdin: str | None = None) -> int:
        """Fix, print, and the exit status."""
        args = self.args
        findings.sort(key=Finding.sort_key)
        if args.diff or args.fix:
            fixed = fix_findings(findings, write=args.fix and stdin is None, read=(
                SourceFile.read if stdin is None else lambda path: SourceFile.parse(path, stdin)))
            if args.diff:
                return self._diff(fixed)
            if stdin is not None:  # ruff's way: the fixed code on stdout, the rest on stderr
                sys.stdout.write(fixed[0].after if fixed else stdin)
            findings = self._after_fixing(findings, fixed)
        text = self._report(findings)
        if not self._write(text, to_stderr=stdin is not None and args.fix):
            return 2
        for note in dict.fromkeys(self.notes):
            self.say(f"note: {note}")
        if args.format in TEXT_FORMATS and not args.statistics and not args.quiet:
            fixable = sum(1 for f in findings if f.fix)
            summary = f"Found {len(findings)} finding{'s' * (len(findings) != 1)}"
            summary += f" ({fixable} fixable with --fix)." if fixable else "."
            print(summary if findings else "All checks passed!", file=sys.stderr)
        return 1 if (findings and not args.exit_zero) or self.problems else 0

    def _report(self, findings: list[Finding]) -> str:
        if not self.args.statistics:
            return FORMATS[self.args.format](findings)
        if self.args.format == "json":
            for line in self._keras_lines():
                self.say(line)
            return report.statistics_json(findings)
        return "\n".join(filter(None, [report.statistics(findings), *self._keras_lines()]))

    def _keras_lines(self) -> list[str]:
        """Which Keras each project was checked for, and why."""
        lines = []
        for root, project in sorted(self.projects.items()):
            keras = project.keras.for_tf_keras()
            automatic = project.config.keras == "auto"
            flavor = keras.flavor if automatic else project.config.keras
            why = keras.reason if automatic else "the keras setting"
            lines.append(printable(f"Keras {flavor} for {root}: {why}"))
        return lines

    def _write(self, text: str, to_stderr: bool = False) -> bool:
        if self.args.output_file is not None:
            try:
                self.args.output_file.write_text(text + "\n" if text else "", encoding="utf-8")
            except OSError as error:
                print(f"tf-insight: cannot write {self.args.output_file}: {error}",
                      file=sys.stderr)
                return False
        elif text:
            print(text, file=sys.stderr if to_stderr else sys.stdout)
        return True

    def _after_fixing(self, findings: list[Finding], fixed: list[Fixed]) -> list[Finding]:
        """What is left to fix by hand (with the findings of a file that could not be
        rewritten, which is left as it was)."""
        done = {id(f) for result in fixed for f in result.applied or ()}
        for result in fixed:
            if result.error is not None:
                print(f"tf-insight: not fixing {printable(result.path)}: "
                      f"{printable(result.error)}; the file is unchanged", file=sys.stderr)
        applied = [result for result in fixed if result.applied]
        for result in applied:
            self.say(f"fixed {len(result.applied or ())} finding(s) in {result.path}")
        if applied and self.args.show_fixes and not self.args.quiet:
            print(_enumeration("Fixed", applied, listed=True), file=sys.stderr)
        return [f for f in findings if id(f) not in done]

    def _diff(self, fixed: list[Fixed]) -> int:
        """`--diff`: the fixes as a diff, nothing written; exit 1 when there is one."""
        changed = [result for result in fixed if result.after != result.before]
        text = "".join(unified_diff(result) for result in changed)
        if not self._write(text.rstrip("\n")):
            return 2
        for result in fixed:
            if result.error is not None:
                print(f"tf-insight: cannot fix {printable(result.path)}: "
                      f"{printable(result.error)}", file=sys.stderr)
        if not self.args.quiet:
            print(_enumeration("Would fix", changed, self.args.show_fixes), file=sys.stderr)
        return 1 if changed or any(result.error for result in fixed) else 0


def _enumeration(verb: str, fixed: list[Fixed], listed: bool) -> str:
    """`Fixed 2 findings.`; `listed`, ruff's list of them: `- path:` then `    2 × TFI006
    (trace-time-side-effect)` for each file."""
    applied = [finding for result in fixed for finding in result.applied or ()]
    lines = [f"{verb} {len(applied)} finding{'s' * (len(applied) != 1)}{':' if listed else '.'}"]
    for result in fixed if listed else ():
        lines.append(printable(f"- {result.path}:"))
        counts = Counter((finding.code, finding.name) for finding in result.applied or ())
        lines += [f"    {count} × {code} ({name})" for (code, name), count in counts.items()]
    return "\n".join(lines)


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
