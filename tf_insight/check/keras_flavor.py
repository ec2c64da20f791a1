"""Which Keras a file runs on: 3 (`keras` 3, and `tf.keras` on TF ≥ 2.16) or 2 (`tf_keras`,
`tensorflow.python.keras`, `tf.keras` under `TF_USE_LEGACY_KERAS=1`, and every Keras of a
TensorFlow ≤ 2.15).

Several hazards differ between them (tf-keras always passes `training=` and AutoGraph-converts
`Layer.call`; Keras 3 does neither and never tracks raw `tf.Variable`s), so rules ask here.

Decided per file, the first that tells winning:
1. the `keras` setting (`"2"`, `"3"`);
2. the file itself: it imports `tf_keras` / `tensorflow.python.keras` (2), sets
   `TF_USE_LEGACY_KERAS` (2), or uses what Keras 3 removed (`fit_generator`, `lr=` in an
   optimizer, `save_format="tf"` or in `save_weights`, `keras.engine`,
   `layers.experimental.preprocessing`, an `int` input shape, `virtual_batch_size=` in a
   `BatchNormalization`, an optimizer's `.lr`, `DenseFeatures`,
   `add_weight(synchronization=...)`, `add_variable("w", ...)`, a layer's `get_output_at`,
   `set_learning_phase`, `multi_gpu_model`, `predict_classes`, `CuDNNLSTM`, a layer named with a
   "/", the modules Keras 3 dropped (`keras.layers.core`, `keras.utils.np_utils`, standalone
   `keras`'s `ImageDataGenerator`...), ...: `KERAS_2_IDIOMS`; not in a docstring's example) (2);
3. the project's main requirements (`project.dependencies` of pyproject.toml,
   `install_requires` of setup.py — computed lists too — and setup.cfg, requirements*.txt,
   environment.yml, Pipfile's `[packages]`, the `Requires-Dist` of a wheel's METADATA or an
   sdist's PKG-INFO; never optional extras; when none names TensorFlow, the newest
   TensorFlow 2.x its README names, `TensorFlow 2.5.0`), read for what the file imports: standalone
   `keras` follows a declared Keras version, else the TensorFlow it comes with; `tf.keras`
   follows `TF_USE_LEGACY_KERAS` set in the project, a `tf-keras` requirement, the declared
   TensorFlow (a cap below 2.16 is Keras 2: `tensorflow>=2.0,<2.5`; a floor from 2.16 is
   Keras 3), a standalone Keras capped below 3 (`keras>=2.9,<3`: TensorFlow 2.16 needs Keras
   3, so the project runs on an older TensorFlow), and requirements that only exist for Keras
   2 (tensorflow-addons, tensorflow-estimator, tensorflow-probability < 0.24,
   tf-models-official < 2.16, a numpy capped below the 1.23.5 that TensorFlow 2.16 needs, ...);
4. the project's own packages: a top-level `__init__.py` that refuses Keras 3 or sets
   `TF_USE_LEGACY_KERAS=1`;
5. the other modules of the file's own top-level package: one sets `TF_USE_LEGACY_KERAS=1`
   (an entry point that does so before importing TensorFlow: the package's `tf.keras` is
   tf-keras, as in 3; `importers.ImportIndex.package_facts`); then the project's other files:
   one that does not import `tf_keras` uses a `KERAS_2_IDIOMS` idiom (the project's code was
   written for Keras 2; both read from the import index's cached text scan,
   `importers.scan`);
6. the TensorFlow and Keras distributions installed in the target interpreter (read, never
   imported);
7. Keras 3.
Steps 1–5 are evidence about the code; 6 and 7 are assumptions (`FileKeras.assumed`): a
finding that depends on the flavour says which it assumed, and the report says when the
assumption changed what was reported.
"""

from __future__ import annotations

import ast
import configparser
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
# `tensorflow-gpu` ends at TF 2.11 (its 2.12 only says to install `tensorflow`)
TENSORFLOW_GPU_END = (2, 12)
TENSORFLOW = {"tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos",
              "tensorflow-intel", "tf-nightly", "tf-nightly-cpu"}
README_FILES = ("README.md", "README.rst", "README.txt", "README")
# `TensorFlow 2.5.0`, `tensorflow==2.4`, `tensorflow >= 2.3`, `TensorFlow v2.10` (2.x only)
_README_VERSION = re.compile(r"\btensorflow(?:-gpu|-cpu)?\s*(?:[=<>~!]=?\s*|\s+v?)(2\.\d+)\b",
                             re.I)
REQUIREMENT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements*.txt",
                     "requirements/*.txt", "environment.yml", "environment.yaml", "Pipfile",
                     "*.dist-info/METADATA", "PKG-INFO", "*.egg-info/requires.txt")
# Packages that never supported Keras 3 (below these versions): a project that needs them
# runs on Keras 2.
KERAS_2_ONLY = {
    "tensorflow-addons": None, "tensorflow-estimator": None, "tensorflow-text": (2, 16),
    "tensorflow-probability": (0, 24), "tf-models-official": (2, 16),
}
# TensorFlow 2.16, the first with Keras 3, requires numpy >= 1.23.5 (its wheels' METADATA): a
# project that caps numpy below it runs on an older TensorFlow, with Keras 2.
KERAS_3_NUMPY = (1, 23, 5)
# `name spec` with the spec in a string, a TOML value or after `Requires-Dist:`.
_REQUIREMENT = re.compile(
    r"(?<![\w.-])(tensorflow(?:[-_](?:cpu|gpu|macos|intel|addons|estimator|text|probability))?"
    r"|tf[-_]nightly(?:[-_]cpu)?|keras(?:[-_]core)?|tf[-_]keras|tf[-_]models[-_]official|numpy)"
    r"(?![\w.-])\s*(?:\"\s*=\s*\")?\(?\s*"
    r"((?:(?:[<>=!~]=?|===)\s*[\w.*+]+\s*,?\s*)*)", re.I)
_CLAUSE = re.compile(r"(===|[<>=!~]=?)\s*([\w.*+]+)")
# `os.environ["TF_USE_LEGACY_KERAS"] = "1"`, `setdefault(...)`, `putenv(...)`, `update({...})`,
# a notebook's `%env TF_USE_LEGACY_KERAS=1`; TF reads "1", "true" and "True"; not in a comment
_LEGACY = re.compile(r"^[^#\n]*?(?:TF_USE_LEGACY_KERAS['\"]\s*(?:\]\s*=|,|:)\s*['\"]|"
                     r"%env\s+TF_USE_LEGACY_KERAS\s*=?\s*)(?:1|[Tt]rue)\b", re.M)
# What only Keras 2 accepts (Keras 3 removed or rejects it): code using it runs on Keras 2.
# Each idiom's expression under the words it contains (as long as they can be: a window of
# text is tried at each of them, and `backend.` alone is in every other line of Keras code).
_LR = r"\b(?:Adam|SGD|RMSprop|Adagrad|Adadelta|Adamax|Nadam|Ftrl)\(\s*lr\s*="
_K_SESSION = r"\bK\.(?:placeholder|get_session|set_session|function)\("
_BACKEND_SESSION = r"\bbackend\.(?:get_session|set_session)\("
# modules Keras 3 no longer has (`from keras.layers.core import Dense`: ModuleNotFoundError)
_LAYER_MODULES = ("core", "convolutional", "recurrent", "normalization", "advanced_activations",
                  "embeddings", "merge", "pooling", "wrappers", "cudnn_recurrent")
_UTILS_MODULES = ("np_utils", "vis_utils", "data_utils", "layer_utils", "conv_utils")
_REMOVED_MODULES = {
    **{f"layers.{name}": rf"\bkeras\.layers\.{name}\b" for name in _LAYER_MODULES},
    **{f"utils.{name}": rf"\bkeras\.utils\.{name}\b" for name in _UTILS_MODULES},
    # standalone Keras 3 only: TF 2.21's `tf.keras` still has these two
    "preprocessing.text": r"(?<![\w.])keras\.preprocessing\.text\b",
}
KERAS_2_IDIOMS: dict[str, re.Pattern[str]] = {
    word: re.compile(rf"^[^#\n]*?(?P<idiom>{expression})", re.M) for word, expression in {
        "_generator(": r"\.(?:fit|predict|evaluate)_generator\(",
        "lr=": _LR, "lr =": _LR,
        "save_format": r"\bsave_format\s*=(?=\s*[\"']tf[\"'])|\.save_weights\([^()]*?\bsave_format\s*=",
        "keras.engine": r"\bkeras\.engine\b",
        "layers.experimental.preprocessing": r"\blayers\.experimental\.preprocessing\b",
        "keras.wrappers.scikit_learn": r"\bkeras\.wrappers\.scikit_learn\b",
        "keras.utils.generic_utils": r"\bkeras\.utils\.generic_utils\b",
        "mixed_precision.experimental": r"\bmixed_precision\.experimental\b",
        ".get_scaled_loss(": r"\.get_scaled_loss\(",
        "K.placeholder(": _K_SESSION, "K.get_session(": _K_SESSION,
        "K.set_session(": _K_SESSION, "K.function(": _K_SESSION,
        "backend.get_session(": _BACKEND_SESSION, "backend.set_session(": _BACKEND_SESSION,
        "Input(": r"\bInput\(\s*(?:shape\s*=\s*)?\d+\s*[,)]",
        "virtual_batch_size": r"\bvirtual_batch_size\s*=(?!=)",
        "optimizer.lr": r"\b\w*optimizer\.lr\b",  # `self._g_optimizer.lr` too
        # the feature-column layer (bench/precision/checks/keras3_has_no_dense_features.py)
        "DenseFeatures": r"\bDenseFeatures\b",
        # the OptimizerV2 API: a Keras 3 optimizer calls `update_step`, and fit raises
        # NotImplementedError (bench/precision/checks/keras2_optimizer_api.py)
        "_resource_apply_dense(": r"(?<=def )_resource_apply_dense\(",
        # Keras 3's add_weight takes no `synchronization` (a TypeError)
        # ... nor a name given first (`add_weight("w", shape)`: ValueError, `name` must be
        # passed as a keyword argument: bench/precision/checks/keras3_add_weight_name_first.py)
        "add_weight(": r"\.add_weight\((?:\s*[\"'][^\"']*[\"']\s*,|(?:[^()]|\([^()]*\))*?"
                       r"\bsynchronization\s*=(?!=))",
        # ... and Keras 2's alias `add_variable("w", shape=...)` is Keras 3's
        # `add_variable(shape, ...)`: the name is taken for the shape (TypeError, same script)
        "add_variable(": r"\.add_variable\(\s*[\"'][^\"']*[\"']\s*,",
        # what Keras 3 no longer has (bench/precision/checks/keras3_removed_layer_and_model_apis.py)
        "_at(": r"\.get_(?:output|input)(?:_shape)?_at\(",
        "set_learning_phase(": r"\bset_learning_phase\(",
        "multi_gpu_model": r"\bmulti_gpu_model\b",
        "predict_classes(": r"\.predict_classes\(",
        "CuDNN": r"\bCuDNN(?:LSTM|GRU)\b",
        # a layer named with a "/" (`Dense(4, name=prefix + "/dense")`): Keras 3 refuses it
        # (ValueError: Argument `name` must be a string and cannot contain character `/`)
        "layers.": r"\blayers\.[A-Z]\w*\((?:[^()]|\([^()]*\))*?\bname\s*=\s*[^,()\n]*?"
                   r"[\"'][^\"'\n]*/",
        # modules Keras 3 removed (TF 2.21, Keras 3.15: a file importing one cannot be imported)
        **_REMOVED_MODULES,
        "ImageDataGenerator": r"(?<![\w.])keras\.preprocessing\.image\b[^\n]*"
                              r"\bImageDataGenerator\b",
    }.items()}
# Idioms whose text may run on further than the line after their word (a call's arguments one
# per line): how many lines after it the window reaches.
_LINES_AFTER = {"add_weight(": 12, "layers.": 6}
# How an idiom whose match spans a call's arguments is shown: its call and the keyword.
_SHOWN = {"save_weights(": "save_weights(save_format=",
          "add_weight(": "add_weight(synchronization="}
_TRAINING_CALL = re.compile(r"\.(?:fit|evaluate|train_on_batch|test_on_batch)\(")
_WEIGHTS = re.compile(r"\b(sample|class)_weight\s*=(?!=)\s*(?!None\b)[^\s,)]")
_REFUSAL = re.compile(r"keras[^\n]{0,40}\b(?:version )?2\b|keras 3|keras>=?\s*3|"
                      r"TF_USE_LEGACY_KERAS", re.I)


@dataclass(frozen=True)
class ProjectKeras:
    """What a project's requirements and packages say about its Keras, and what the target
    interpreter has installed."""

    tensorflow: Flavor | None = None  # from the declared TensorFlow (`<2.16`, `>=2.16`)
    keras: Flavor | None = None  # from a declared standalone Keras (`keras<3`, `keras>=3`)
    legacy: str = ""  # what makes `tf.keras` Keras 2 (TF_USE_LEGACY_KERAS, tf-keras, ...)
    tensorflow_reason: str = ""
    keras_reason: str = ""
    installed: Flavor | None = None  # from the target interpreter's distributions
    installed_reason: str = ""
    idiom: str = ""  # a project file that uses what Keras 3 removed, and what it uses
    weights: str = ""  # a project file that passes sample or class weights to `fit`
    tensorflow_1: str = ""  # the requirement that pins TensorFlow 1.x, and where

    @property
    def undecided(self) -> bool:
        """Whether a file could get its Keras from neither its requirements nor its packages
        (so that the project's other files are worth reading)."""
        return self.tensorflow is None and not (self.keras is not None and self.legacy)

    def for_tf_keras(self) -> FileKeras:
        """The Keras of the project's `tf.keras` code, and why."""
        return FileKeras.of(self, standalone=False)


@dataclass(frozen=True)
class KerasUsage:
    """What a project's files show of how they use Keras, each as a reason naming the first
    file that shows it ("" when none does): one uses what Keras 3 removed (`idiom`), one
    gives Keras sample or class weights (`weights`)."""

    idiom: str = ""
    weights: str = ""


@dataclass(frozen=True)
class FileKeras:
    flavor: Flavor
    reason: str
    assumed: bool  # from what is installed or the default, not from the code or the project

    @classmethod
    def of(cls, project: ProjectKeras, standalone: bool) -> FileKeras:
        """For a file using standalone `keras` (`standalone`) or `tf.keras`."""
        if standalone and project.keras is not None:
            return cls(project.keras, project.keras_reason, False)
        if not standalone and project.legacy:
            return cls("2", project.legacy, False)
        if project.tensorflow is not None:
            return cls(project.tensorflow, project.tensorflow_reason, False)
        if not standalone and project.keras == "2":  # TensorFlow >= 2.16 requires Keras 3
            return cls("2", f"{project.keras_reason} (TensorFlow before 2.16)", False)
        if project.idiom:
            return cls("2", project.idiom, False)
        if project.installed is not None:
            return cls(project.installed, project.installed_reason, True)
        return cls("3", "nothing in the project says which TensorFlow it needs", True)


def file_keras(text: str, imports: ImportMap, setting: str = "auto",
               project: ProjectKeras | None = None) -> FileKeras:
    """The Keras one file runs on (see the module docstring)."""
    if setting in ("2", "3"):
        return FileKeras("2" if setting == "2" else "3", "the keras setting", False)
    if imports.imports_any("tf_keras", "tensorflow.python.keras"):
        return FileKeras("2", "the file imports tf_keras", False)
    standalone = imports.imports_any("keras")
    if standalone and project is not None and project.legacy and _uses_tf_keras(text, imports):
        # both, in a project whose `tf.keras` is tf-keras: `import keras` is the fallback
        # of another TensorFlow (`if tf_version == 1: from keras.layers import ...`)
        standalone = False
    # `os.environ["TF_USE_LEGACY_KERAS"] = "1"` before `import tensorflow` selects tf-keras
    # (a comment or a read of it does not).
    if sets_legacy_keras(text) and not standalone:
        return FileKeras("2", "the file sets TF_USE_LEGACY_KERAS", False)
    idiom = keras_2_idiom(text)
    if idiom is not None:
        return FileKeras("2", f"the file uses `{idiom}`, which only Keras 2 accepts", False)
    return FileKeras.of(project or ProjectKeras(), standalone)


def _uses_tf_keras(text: str, imports: ImportMap) -> bool:
    """`import tensorflow.keras...`, `from tensorflow import keras`, or `tf.keras.`."""
    return imports.imports_any("tensorflow.keras") or any(
        raw.split(".")[:2] == ["tensorflow", "keras"] for raw in imports.aliases.values()) or (
        "tf.keras." in text and imports.imports_any("tensorflow"))


def keras_2_idiom(text: str) -> str | None:
    """The first use of what only Keras 2 accepts in `text` (outside comments), if any."""
    match = _first_idiom(text)
    if match is None:
        return None
    idiom = "".join(match.group("idiom").split()).lstrip(".")
    if idiom.endswith("ImageDataGenerator"):  # its import, or the attribute chain
        return "keras.preprocessing.image.ImageDataGenerator"
    layer = re.match(r"layers\.[A-Z]\w*\(", idiom)
    if layer is not None:  # a layer's name with a "/": its call and the name
        return layer.group() + 'name=".../...")'
    for call, shown in _SHOWN.items():
        if idiom.startswith(call) and shown[len(call):].rstrip("=") in idiom:
            idiom = shown  # whatever comes between
    idiom += "..." if idiom.endswith("=") else " ..." if idiom.endswith(",") else ""
    return idiom + ")" * (idiom.count("(") - idiom.count(")"))


def sets_legacy_keras(text: str) -> bool:
    """Whether `text` sets `TF_USE_LEGACY_KERAS=1` (`os.environ[...] = "1"`, `setdefault`)."""
    return "TF_USE_LEGACY_KERAS" in text and _LEGACY.search(text) is not None


def weights_given(text: str) -> str | None:
    """`sample_weight=` or `class_weight=` given a value other than None in a call of
    `fit`, `evaluate`, `train_on_batch` or `test_on_batch` (`.fit(x, y, class_weight=cw)`,
    outside comments) in `text`, if any: the weights Keras applies to a loss's values."""
    for call in _TRAINING_CALL.finditer(text):
        if "#" in text[text.rfind("\n", 0, call.start()) + 1:call.start()]:
            continue
        depth, end = 1, call.end()
        while depth and end < len(text) and end < call.end() + 4000:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        given = _WEIGHTS.search(text, call.end(), end)
        if given is not None:
            return f"{given.group(1)}_weight="
    return None


def _first_idiom(text: str) -> re.Match[str] | None:
    """The first of `KERAS_2_IDIOMS` in `text`, written on one or two lines, outside
    triple-quoted strings (a docstring's example may be older than its code): each idiom's
    expression is tried only around its word (from the line before one to the line after),
    not at every character of the file (every file of a project is scanned)."""
    best: re.Match[str] | None = None
    for key, idiom in KERAS_2_IDIOMS.items():
        position = text.find(key)
        while position >= 0:
            line = text.rfind("\n", 0, position)
            start = text.rfind("\n", 0, line) + 1 if line > 0 else 0
            end = text.find("\n", position)
            for _ in range(_LINES_AFTER.get(key, 1)):
                end = text.find("\n", end + 1) if end >= 0 else -1
            end = len(text) if end < 0 else end
            match = idiom.search(text, start, end)
            while match is not None and _in_long_string(text, match.start("idiom")):
                line = text.find("\n", match.start("idiom"))  # the next line of the window
                match = idiom.search(text, line + 1, end) if 0 <= line < end else None
            if match is not None:
                if best is None or match.start("idiom") < best.start("idiom"):
                    best = match
                break  # a later one of the same word is further on
            position = text.find(key, position + 1)
    return best


def _in_long_string(text: str, position: int) -> bool:
    """Whether `position` is inside a triple-quoted string (an odd number of them opened
    before it; close enough for the few places an idiom is found)."""
    return text.count('"""', 0, position) % 2 == 1 or text.count("'''", 0, position) % 2 == 1


def project_keras(root: Path | None, sys_path: Iterable[str]) -> ProjectKeras:
    """What the project declares (requirements, its packages) and what the target
    interpreter has installed."""
    found: dict[str, str] = {}
    if root is not None:
        optional: dict[str, str] = {}
        for path in _requirement_files(root):
            try:
                main, extras = requirements_text(path)
            except (OSError, ValueError, RecursionError, SyntaxError):
                continue  # a bad or hostile file says nothing
            where = path.relative_to(root).as_posix()
            for key, (flavor, shown) in requirements_flavors(main).items():
                found.setdefault(key, f"{flavor}|{shown} in {where}")
            # An extra's TensorFlow pin says which TensorFlow the code runs with; an optional
            # tf-keras says nothing of what `tf.keras` is.
            for key, (flavor, shown) in requirements_flavors(extras).items():
                if key not in ("legacy", "tf1"):
                    optional.setdefault(key, f"{flavor}|{shown} (an extra) in {where}")
        for key, value in optional.items():
            found.setdefault(key, value)
        if "tensorflow" not in found and (named := _readme_tensorflow(root)) is not None:
            found["tensorflow"] = named
        for init in _package_inits(root):
            if _needs_keras_2(init):
                found.setdefault("legacy", f"2|{init.relative_to(root).as_posix()} refuses Keras 3")
    installed, installed_reason = _installed_flavor(sys_path)

    def part(key: str) -> tuple[Flavor | None, str]:
        if key not in found:
            return None, ""
        flavor, _, reason = found[key].partition("|")
        return ("2" if flavor == "2" else "3"), reason

    tensorflow, tensorflow_reason = part("tensorflow")
    keras, keras_reason = part("keras")
    legacy_flavor, legacy_reason = part("legacy")
    return ProjectKeras(tensorflow, keras, legacy_reason if legacy_flavor == "2" else "",
                        tensorflow_reason, keras_reason, installed, installed_reason,
                        tensorflow_1=found.get("tf1", "").partition("|")[2])


def requirements_flavors(text: str) -> dict[str, tuple[Flavor, str]]:
    """What requirements say, by kind: "tensorflow" (a TensorFlow capped below 2.16, or a
    Keras-2-only package: 2; a TensorFlow from 2.16: 3), "keras" (standalone Keras below 3:
    2; from 3, or keras-core: 3), "legacy" (tf-keras: `tf.keras` code is meant to run on it),
    "tf1" (a TensorFlow capped below 2: TensorFlow 1.x graph code), each with the requirement
    that decided, as written."""
    found: dict[str, tuple[Flavor, str]] = {}
    newer: dict[str, tuple[Flavor, str]] = {}
    for match in _REQUIREMENT.finditer(text):
        name = match.group(1).lower().replace("_", "-")
        spec = match.group(2).strip().rstrip(",")
        # `==2.15.*` is a prefix match: its operator keeps the star
        clauses = [(f"{op}*" if v.endswith("*") else op, _version(v))
                   for op, v in _CLAUSE.findall(spec)]
        shown = f"{name} {spec}".strip()
        upper, lower = _upper(clauses), _lower(clauses)
        if name == "tf-keras":
            found.setdefault("legacy", ("2", shown))
        elif name == "keras-core":
            newer.setdefault("keras", ("3", shown))
        elif name == "keras":
            if upper is not None and upper <= (3,):
                found.setdefault("keras", ("2", shown))
            elif lower is not None and lower >= (3,):
                newer.setdefault("keras", ("3", shown))
        elif name in TENSORFLOW:
            if name == "tensorflow-gpu":
                upper = min(upper or TENSORFLOW_GPU_END, TENSORFLOW_GPU_END)
            if upper is not None and upper <= (2,):
                found.setdefault("tf1", ("2", shown))  # TensorFlow 1.x: graphs, sessions
            if upper is not None and upper <= KERAS_3_TENSORFLOW:
                found.setdefault("tensorflow", ("2", shown))
            elif lower is not None and lower >= KERAS_3_TENSORFLOW:
                newer.setdefault("tensorflow", ("3", shown))
        elif name == "numpy":
            if upper is not None and upper <= KERAS_3_NUMPY:
                found.setdefault("tensorflow", ("2", f"{shown} (older than TensorFlow 2.16 needs)"))
        elif name in KERAS_2_ONLY:
            below = KERAS_2_ONLY[name]
            if below is None or (upper is not None and upper <= below):
                found.setdefault("tensorflow", ("2", f"{shown} (only for Keras 2)"))
    return {**newer, **found}  # what needs Keras 2 wins over a floor that allows Keras 3


def requirements_text(path: Path) -> tuple[str, str]:
    """The requirements a file states, one per line: the main ones, and those of optional
    extras. `Requires-Dist` of METADATA and PKG-INFO, `dependencies` and
    `optional-dependencies` of pyproject.toml (and Poetry's), `install_requires` and
    `extras_require` of setup.py and setup.cfg, a `requires.txt` before and after its first
    `[extra]`, Pipfile's `[packages]`; the rest (requirements files, environment.yml) without
    comments, all main."""
    text = read_text(path)
    if path.name in ("METADATA", "PKG-INFO"):
        lines = [line for line in text.splitlines()
                 if line.startswith(("Requires-Dist:", "Requires:"))]
        extra = [line for line in lines if re.search(r"extra\s*==", line)]
        return "\n".join(line for line in lines if line not in extra), "\n".join(extra)
    if path.name == "requires.txt":
        before, _, after = text.partition("\n[")
        return before, after
    if path.name == "pyproject.toml":
        data = tomllib.loads(text)
        project = data.get("project", {})
        poetry = data.get("tool", {}).get("poetry", {})
        optional = [str(item) for group in project.get("optional-dependencies", {}).values()
                    for item in group]
        return ("\n".join([*map(str, project.get("dependencies", [])),
                           *_named_specs(poetry.get("dependencies", {}))]),
                "\n".join([*optional, *_named_specs(
                    {k: v for group in poetry.get("group", {}).values()
                     for k, v in group.get("dependencies", {}).items()})]))
    if path.name == "Pipfile":
        return "\n".join(_named_specs(tomllib.loads(text).get("packages", {}))), ""
    if path.name == "setup.py":
        required, extras = _setup_requirements(text)
        return "\n".join(required), "\n".join(extras)
    if path.name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
        section = "options.extras_require"
        optional = list(parser[section].values()) if parser.has_section(section) else []
        return parser.get("options", "install_requires", fallback=""), "\n".join(optional)
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines()), ""


def _named_specs(table: dict[str, object]) -> list[str]:
    """`name = "spec"` entries (Poetry, Pipfile) as `namespec` requirements."""
    return [f"{name}{spec if isinstance(spec, str) and spec[:1] in '<>=!~' else ''}"
            for name, spec in table.items()]


def _setup_requirements(text: str) -> tuple[list[str], list[str]]:
    """The strings `setup(install_requires=..., extras_require=...)` is given: literal
    lists and dicts, module-level names bound to them, lists added together
    (`REQUIRED + ["tensorflow>=2.16"]`)."""
    tree = parse_module(text)
    values: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value

    def strings(value: ast.expr | None, depth: int = 0) -> list[str]:
        if value is None or depth > 8:
            return []
        if isinstance(value, ast.Name):
            return strings(values.get(value.id), depth + 1)
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return strings(value.left, depth + 1) + strings(value.right, depth + 1)
        if isinstance(value, ast.Dict):
            return [item for entry in value.values for item in strings(entry, depth + 1)]
        if isinstance(value, ast.List | ast.Tuple | ast.Set):
            return [item.value for item in value.elts
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)]
        return []

    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", getattr(
                call.func, "attr", "")) == "setup":
            given = {item.arg: item.value for item in call.keywords}
            return (strings(given.get("install_requires")),
                    strings(given.get("extras_require")))
    return [], []


def _installed_flavor(sys_path: Iterable[str]) -> tuple[Flavor | None, str]:
    installed = installed_versions(sys_path)
    tensorflow = installed.get("tensorflow")
    if tensorflow is not None:
        shown = ".".join(map(str, tensorflow))
        flavor: Flavor = "2" if tensorflow < KERAS_3_TENSORFLOW else "3"
        return flavor, f"tensorflow {shown} is installed in the target interpreter"
    keras = installed.get("keras")
    if keras is not None:
        return ("2" if keras < (3,) else "3"), f"keras {'.'.join(map(str, keras))} is installed"
    return None, ""


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


def _package_inits(root: Path) -> list[Path]:
    """The `__init__.py` of the project's top-level packages (in the root or `src/`)."""
    found: list[Path] = []
    for base in (root, root / "src"):
        try:
            found += sorted(base.glob("*/__init__.py"))
        except OSError:
            continue
    return found


def _needs_keras_2(init: Path) -> bool:
    """A package that sets `TF_USE_LEGACY_KERAS=1`, or raises when it meets Keras 3."""
    try:
        text = read_text(init)
    except OSError:
        return False
    if "keras" not in text.lower():
        return False
    if sets_legacy_keras(text):
        return True
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, ast.Raise) and _REFUSAL.search(ast.get_source_segment(
        text, node) or "") is not None for node in ast.walk(tree))


def _readme_tensorflow(root: Path) -> str | None:
    """The newest TensorFlow the project's README names (`TensorFlow 2.5.0`,
    `tensorflow>=2.4`), as `flavor|reason`: what the code was written for, when no requirement
    says."""
    for name in README_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8", errors="replace")[:200_000]
        except OSError:
            continue
        versions = [_version(found) for found in _README_VERSION.findall(text)]
        if versions:
            newest = max(versions)
            flavor = "2" if newest < (2, 16) else "3"
            shown = ".".join(map(str, newest))
            return f"{flavor}|TensorFlow {shown} named in {name}"
    return None


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
    """The exclusive upper bound of a specifier (`<2.16`, `<=2.15`, `~=2.15.0`, `==2.15.*`).
    `<=1.23` and `==1.23` allow 1.23 itself (1.23.0), not 1.23.5: their bound sorts just above
    the version, below any release after it."""
    bounds = []
    for op, version in clauses:
        if not version:
            continue
        if op == "<":
            # `<2.16.0` is `<2.16`: as a tuple, (2, 16, 0) would sort above (2, 16)
            while len(version) > 1 and version[-1] == 0:
                version = version[:-1]
            bounds.append(version)
        elif op in ("<=", "==", "==="):
            bounds.append((*version, 0, 0, 1))
        elif op == "~=" and len(version) > 1:
            bounds.append((*version[:-2], version[-2] + 1))
        elif op in ("~=", "==*", "===*"):
            bounds.append((*version[:-1], version[-1] + 1))
    return min(bounds) if bounds else None


def _lower(clauses: list[tuple[str, tuple[int, ...]]]) -> tuple[int, ...] | None:
    bounds = [version for op, version in clauses if op in (">=", ">", "~=", "==", "===", "==*",
                                                              "===*") and version]
    return max(bounds) if bounds else None
