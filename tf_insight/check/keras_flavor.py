"""Which Keras a file runs on: 3 (`keras` 3, and `tf.keras` on TF ≥ 2.16) or 2 (`tf_keras`,
`tensorflow.python.keras`, `tf.keras` under `TF_USE_LEGACY_KERAS=1`, and every Keras of a
TensorFlow ≤ 2.15).

Several hazards differ between them (tf-keras always passes `training=` and AutoGraph-converts
`Layer.call`; Keras 3 does neither and never tracks raw `tf.Variable`s), so rules ask here.

In order, the first that tells wins:
1. the `keras` setting (`"2"`, `"3"`);
2. the file: it imports `tf_keras` / `tensorflow.python.keras`, or sets `TF_USE_LEGACY_KERAS`;
3. the project's declared requirements (pyproject.toml, setup.py, setup.cfg,
   requirements*.txt, the METADATA / PKG-INFO of an unpacked wheel or sdist): a TensorFlow
   capped below 2.16 or a Keras below 3 is Keras 2; a TensorFlow from 2.16 or a Keras from 3
   (or `keras-core`) is Keras 3;
4. the project's own packages: a top-level `__init__.py` that refuses Keras 3 (raises when
   `tf.keras` is version 3) or sets `TF_USE_LEGACY_KERAS=1` runs on Keras 2;
5. the TensorFlow and Keras distributions installed in the target interpreter (their
   `*.dist-info` folders, read, never imported);
6. Keras 3.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tf_insight.check.imports import ImportMap
from tf_insight.check.source import parse_module
from tf_insight.files import read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

Flavor = Literal["3", "2"]
KERAS_3_TENSORFLOW = (2, 16)
TENSORFLOW = {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos",
              "tensorflow-intel", "tf-nightly", "tf-nightly-cpu"}
REQUIREMENT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt",
                     "requirements/*.txt", "*.dist-info/METADATA", "PKG-INFO",
                     "*.egg-info/requires.txt")
# `name spec` with the spec in a string, a TOML value or after `Requires-Dist:`.
_REQUIREMENT = re.compile(
    r"(?<![\w.-])(tensorflow(?:[-_](?:cpu|gpu|macos|intel))?|tf[-_]nightly(?:[-_]cpu)?|keras"
    r"(?:[-_]core)?|tf[-_]keras)(?![\w.-])\s*(?:\"\s*=\s*\")?\(?\s*"
    r"((?:(?:[<>=!~]=?|===)\s*[\w.*+]+\s*,?\s*)*)", re.I)
_CLAUSE = re.compile(r"(===|[<>=!~]=?)\s*([\w.*+]+)")


@dataclass(frozen=True)
class ProjectKeras:
    """What a project's requirements or installed packages say about its Keras."""

    flavor: Flavor | None
    reason: str


def infer_flavor(text: str, imports: ImportMap, setting: str = "auto",
                 project: Flavor | None = None) -> Flavor:
    if setting in ("2", "3"):
        return "2" if setting == "2" else "3"
    if imports.imports_any("tf_keras", "tensorflow.python.keras"):
        return "2"
    # `os.environ["TF_USE_LEGACY_KERAS"] = "1"` before `import tensorflow` selects tf-keras.
    if "TF_USE_LEGACY_KERAS" in text and not imports.imports_any("keras"):
        return "2"
    return project or "3"


def project_keras(root: Path | None, sys_path: Iterable[str]) -> ProjectKeras:
    """The project's Keras from its requirements, else from the target interpreter's
    installed distributions (steps 3 and 4 of the module docstring)."""
    if root is not None:
        for path in _requirement_files(root):
            try:
                text = _requirements_text(path)
            except (OSError, ValueError, RecursionError):  # a bad or hostile file says nothing
                continue
            flavor, requirement = requirements_flavor(text)
            if flavor is not None:
                return ProjectKeras(flavor, f"{requirement} in {path.relative_to(root)}")
        for init in _package_inits(root):
            if _needs_keras_2(init):
                return ProjectKeras("2", f"{init.relative_to(root)} refuses Keras 3")
    installed = installed_versions(sys_path)
    tensorflow = installed.get("tensorflow")
    if tensorflow is not None:
        flavor = "2" if tensorflow < KERAS_3_TENSORFLOW else "3"
        shown = ".".join(map(str, tensorflow))
        return ProjectKeras(flavor, f"tensorflow {shown} is installed in the target interpreter")
    keras = installed.get("keras")
    if keras is not None:
        return ProjectKeras("2" if keras < (3,) else "3",
                            f"keras {'.'.join(map(str, keras))} is installed")
    return ProjectKeras(None, "nothing declared or installed says; Keras 3 assumed")


def requirements_flavor(text: str) -> tuple[Flavor | None, str]:
    """Keras 2 if any requirement in `text` caps TensorFlow below 2.16 or Keras below 3 (the
    code that needs it runs on Keras 2), else Keras 3 if one asks for TensorFlow from 2.16 or
    Keras from 3; the requirement that decided, as written."""
    keras3: str | None = None
    for match in _REQUIREMENT.finditer(text):
        name = match.group(1).lower().replace("_", "-")
        spec = match.group(2).strip().rstrip(",")
        clauses = [(op, _version(v)) for op, v in _CLAUSE.findall(spec)]
        shown = f"{name} {spec}".strip()
        if name == "tf-keras":
            return "2", shown
        if name == "keras-core":
            keras3 = keras3 or shown
            continue
        limit = (3,) if name == "keras" else KERAS_3_TENSORFLOW
        upper = _upper(clauses)
        if upper is not None and upper <= limit:
            return "2", shown
        lower = _lower(clauses)
        if lower is not None and lower >= limit:
            keras3 = keras3 or shown
    return ("3", keras3) if keras3 else (None, "")


def installed_versions(sys_path: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Versions of tensorflow (any build) and keras from `*.dist-info` folder names."""
    found: dict[str, tuple[int, ...]] = {}
    for entry in sys_path:
        folder = Path(entry)
        for pattern, key in (("tensorflow*-*.dist-info", "tensorflow"),
                             ("keras-*.dist-info", "keras")):
            try:
                infos = sorted(folder.glob(pattern))
            except OSError:
                continue
            for info in infos:
                name, _, version = info.name[: -len(".dist-info")].partition("-")
                if key == "tensorflow" and name.lower().replace("_", "-") not in TENSORFLOW:
                    continue
                found.setdefault(key, _version(version))
    return found


def _requirements_text(path: Path) -> str:
    """The part of a file that states requirements: `Requires-Dist` lines of METADATA (its
    description is prose), the dependency tables of pyproject.toml, the rest without comments."""
    text = read_text(path)
    if path.name in ("METADATA", "PKG-INFO"):
        return "\n".join(line for line in text.splitlines()
                         if line.startswith(("Requires-Dist:", "Requires:")))
    if path.name == "pyproject.toml":
        data = tomllib.loads(text)
        project = data.get("project", {})
        found = [*project.get("dependencies", []),
                 *(d for group in project.get("optional-dependencies", {}).values() for d in group)]
        poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
        found += [f"{name}{spec if isinstance(spec, str) and spec[:1] in '<>=!~' else ''}"
                  for name, spec in poetry.items()]
        return "\n".join(str(item) for item in found)
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def _package_inits(root: Path) -> list[Path]:
    """The `__init__.py` of the project's top-level packages (in the root or `src/`)."""
    found: list[Path] = []
    for base in (root, root / "src"):
        try:
            found += sorted(base.glob("*/__init__.py"))
        except OSError:
            continue
    return found


_LEGACY = re.compile(r"TF_USE_LEGACY_KERAS['\"]\s*\]\s*=\s*['\"]1")
_REFUSAL = re.compile(r"keras[^\n]{0,40}\b(?:version )?2\b|keras 3|keras>=?\s*3|"
                      r"TF_USE_LEGACY_KERAS", re.I)


def _needs_keras_2(init: Path) -> bool:
    """A package that sets `TF_USE_LEGACY_KERAS=1`, or raises when it meets Keras 3."""
    try:
        text = read_text(init)
    except OSError:
        return False
    if "keras" not in text.lower():
        return False
    if _LEGACY.search(text):
        return True
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, ast.Raise) and _REFUSAL.search(ast.get_source_segment(
        text, node) or "") is not None for node in ast.walk(tree))


def _requirement_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for pattern in REQUIREMENT_FILES:
        try:
            files += sorted(root.glob(pattern))
        except OSError:
            continue
    return [f for f in files if f.is_file()]


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def _upper(clauses: list[tuple[str, tuple[int, ...]]]) -> tuple[int, ...] | None:
    """The exclusive upper bound of a specifier (`<2.16`, `<=2.15`, `~=2.15.0`, `==2.15.*`)."""
    bounds = []
    for op, version in clauses:
        if not version:
            continue
        if op == "<":
            bounds.append(version)
        elif op in ("<=", "==", "===") or op == "~=":
            if op == "~=" and len(version) > 1:
                bounds.append((*version[:-2], version[-2] + 1))
            else:
                bounds.append((*version[:-1], version[-1] + 1))
    return min(bounds) if bounds else None


def _lower(clauses: list[tuple[str, tuple[int, ...]]]) -> tuple[int, ...] | None:
    bounds = [version for op, version in clauses if op in (">=", ">", "~=", "==", "===")
              and version]
    return max(bounds) if bounds else None
