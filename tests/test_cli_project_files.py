"""What `tf-insight check` takes for the project (issue 28): ignored files, virtual
environments whatever their names, hidden and build folders are not part of it; a file checked
alone gets the graph contexts of the modules that import it, found from an index of the
project's imports kept in the user's cache folder. Real git repositories, real processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.test_cli_options import SIDE_EFFECT, run
from tf_insight.check.discovery import iter_python_files
from tf_insight.check.importers import imported_names
from tf_insight.check.project import Project
from tf_insight.config import Config

HELPERS = "import tensorflow as tf\n\n\ndef log(x):\n    print('step', tf.reduce_sum(x))\n    return x\n"
TRAIN = ("import tensorflow as tf\n\nimport helpers\n\n\n@tf.function\ndef step(x):\n"
         "    return helpers.log(x) + 1\n")


def write(root: Path, *paths: str, text: str = SIDE_EFFECT) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def checked(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode in (0, 1), result.stderr
    return sorted({finding["path"] for finding in json.loads(result.stdout)})


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository whose venv has another name than .venv, listed in its .gitignore."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("tfenv/\ngen/*\n!gen/keep.py\n")
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("scratch_*.py\n")
    write(tmp_path, "tfenv/lib/python3.11/site-packages/pkg/mod.py", "myenv/lib/tool.py",
          ".hidden/h.py", "node_modules/x/n.py", "build/b.py", "gen/g.py", "gen/keep.py",
          "src/app/main.py", "src/app/local.py", "scratch_1.py")
    (tmp_path / "tfenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # not in .gitignore
    (tmp_path / "src" / ".ignore").write_text("local.py\n")
    return tmp_path


def test_ignored_files_environments_hidden_and_build_folders_are_not_the_project(
        repository: Path) -> None:
    assert checked(run("check", "--output-format", "json", ".", cwd=repository)) == [
        "gen/keep.py", "src/app/main.py"]
    assert checked(run("check", "--output-format", "json", "--no-respect-gitignore", ".",
                       cwd=repository)) == [
        "gen/g.py", "gen/keep.py", "scratch_1.py", "src/app/local.py", "src/app/main.py"]
    (repository / "pyproject.toml").write_text("[tool.tf-insight]\nrespect-gitignore = false\n")
    assert "gen/g.py" in checked(run("check", "--output-format", "json", ".", cwd=repository))


def test_a_folder_asked_for_is_checked_whatever_ignores_it(repository: Path) -> None:
    package = "tfenv/lib/python3.11/site-packages/pkg"
    assert checked(run("check", "--output-format", "json", package, ".hidden", "gen/g.py",
                       cwd=repository)) == [".hidden/h.py", "gen/g.py", f"{package}/mod.py"]


@pytest.mark.parametrize(("ignore", "expected"), [
    ("/top.py\n", ["a/top.py", "b/c/d.py"]),  # anchored: only at the ignore file's folder
    ("top.py\n", ["b/c/d.py"]),  # a name: at any depth
    ("b/**/d.py\n", ["a/top.py", "top.py"]),
    ("**/c\n", ["a/top.py", "top.py"]),
    ("c/\n*.py\n!top.py\n", ["a/top.py", "top.py"]),  # the last pattern that matches wins
    ("# a comment\n\\#top.py\nt?p.py\n", ["b/c/d.py"]),
    ("[ab]/\n", ["top.py"]),
])
def test_gitignore_patterns_as_git_reads_them(tmp_path: Path, ignore: str,
                                              expected: list[str]) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, "top.py", "a/top.py", "b/c/d.py")
    (tmp_path / ".gitignore").write_text(ignore)
    found = [path.relative_to(tmp_path).as_posix()
             for path in iter_python_files([tmp_path], Config())]
    assert sorted(found) == expected


def test_gitignore_outside_a_repository_ignores_nothing_and_dot_ignore_does(
        tmp_path: Path) -> None:
    write(tmp_path, "a.py", "b.py")
    (tmp_path / ".gitignore").write_text("a.py\n")
    (tmp_path / ".ignore").write_text("b.py\n")
    assert [p.name for p in iter_python_files([tmp_path], Config())] == ["a.py"]


def test_a_file_gets_the_contexts_its_importers_give_from_the_cached_index(
        tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    write(tmp_path, "helpers.py", text=HELPERS)
    write(tmp_path, "train.py", text=TRAIN)
    first = run("check", "--output-format", "json", "helpers.py", cwd=tmp_path)
    assert [f["code"] for f in json.loads(first.stdout)] == ["TFI006"]
    (index,) = (tmp_path / ".cache" / "tf-insight" / "imports").glob("*.json")
    entries = json.loads(index.read_text())["files"]
    assert sorted(entries) == ["helpers.py", "train.py"]  # not .cache's own files
    assert run("check", "--output-format", "json", "helpers.py", cwd=tmp_path).stdout == (
        first.stdout)
    (tmp_path / "train.py").write_text(TRAIN.replace("@tf.function\n", ""))  # a changed file
    assert json.loads(run("check", "--output-format", "json", "helpers.py",
                          cwd=tmp_path).stdout) == []


LAYER = ("import tensorflow as tf\n\n\nclass Scale(tf.keras.layers.Layer):\n"
         "    def call(self, x):\n        scale = tf.Variable(2.0)\n        return x * scale\n")


def test_a_superseded_copy_is_left_out_with_a_note_and_a_script_is_not(
        tmp_path: Path) -> None:
    """A package module nothing imports, whose class an imported module defines too, never
    runs: its findings are left out and a note names the module it copies. What runs without
    being imported keeps them: a script outside the package, a module with a `__main__`
    block, a test module; and once something imports the copy, it is checked again."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    write(tmp_path, "app/__init__.py", text="from app.layers import Scale\n")
    write(tmp_path, "app/layers.py", "app/layers_old.py", "app/layers_test.py", "run_scale.py",
          text=LAYER)
    write(tmp_path, "app/demo.py", text=LAYER + "\n\nif __name__ == '__main__':\n    Scale()\n")
    result = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert checked(result) == ["app/demo.py", "app/layers.py", "app/layers_test.py",
                               "run_scale.py"]
    assert ("app/layers_old.py: 1 finding(s) left out: nothing in the project imports it, and "
            "`app/layers.py`, which is imported, defines its class `Scale` too: a superseded "
            "copy") in result.stderr
    write(tmp_path, "tests/test_old.py", text="from app.layers_old import Scale\n")
    assert checked(run("check", "--output-format", "json", ".", cwd=tmp_path)) == [
        "app/demo.py", "app/layers.py", "app/layers_old.py", "app/layers_test.py",
        "run_scale.py"]


def test_a_module_whose_project_import_names_nothing_there_is_left_out_with_a_note(
        tmp_path: Path) -> None:
    """`from app.blocks import Frame` where `app/blocks.py` nowhere names `Frame` raises
    ImportError: nothing in the importing module runs, so its findings are left out and a
    note says why. A name the module may make (`import *`) or a submodule of a package keeps
    them, and once the name is defined the module is checked again."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    write(tmp_path, "app/__init__.py", text="")
    write(tmp_path, "app/blocks.py", text="class Shift:\n    pass\n")
    write(tmp_path, "app/parts/__init__.py", text="")
    write(tmp_path, "app/parts/edge.py", text="")
    write(tmp_path, "app/model.py", text="from app.blocks import Frame\n" + SIDE_EFFECT)
    write(tmp_path, "app/relative.py", text="from .blocks import Shift, Frame\n" + SIDE_EFFECT)
    write(tmp_path, "app/sub.py", text="from .parts import edge\nfrom .blocks import *\n"
          + SIDE_EFFECT)
    write(tmp_path, "app/star.py", text="from app.starred import Frame\n" + SIDE_EFFECT)
    write(tmp_path, "app/starred.py", text="from app.blocks import *\n")
    result = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert checked(result) == ["app/star.py", "app/sub.py"]
    assert ("app/model.py: 1 finding(s) left out: it cannot be imported: `from app.blocks "
            "import Frame` fails, as `app/blocks.py` defines no `Frame`") in result.stderr
    assert "`from .blocks import Frame` fails" in result.stderr
    write(tmp_path, "app/blocks.py", text="class Shift:\n    pass\n\n\nFrame = Shift\n")
    assert checked(run("check", "--output-format", "json", ".", cwd=tmp_path)) == [
        "app/model.py", "app/relative.py", "app/star.py", "app/sub.py"]


def test_a_nested_project_whose_settings_cannot_be_read_is_checked_with_the_outer_ones(
        tmp_path: Path) -> None:
    """A template folder inside the project (`{{ cookiecutter.repo_name }}/pyproject.toml`,
    not TOML until rendered) loses nothing: the error is said, its files are checked with the
    settings of the project around it, and the exit status says a problem was met. The
    project's own settings unreadable is still an error of the run."""
    (tmp_path / "pyproject.toml").write_text("[tool.tf-insight]\nignore = []\n")
    write(tmp_path, "app/steps.py", "starter/{{ name }}/pkg/steps.py")
    (tmp_path / "starter" / "{{ name }}" / "pyproject.toml").write_text(
        "[project]\n{{ name }} = 1\n")
    result = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert checked(result) == ["app/steps.py", "starter/{{ name }}/pkg/steps.py"]
    assert "pyproject.toml: cannot read the settings: " in result.stderr
    assert f"its files are checked with the settings of {tmp_path}" in result.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.tf-insight\n")
    result = run("check", "--output-format", "json", ".", cwd=tmp_path)
    assert result.returncode == 2 and "cannot read the settings" in result.stderr


def test_after_a_save_a_copy_is_judged_on_the_files_as_they_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor's project forgets its scan when a file is saved: an import of the copy added,
    or the class gone from the module it copied, makes it no copy (each file's classes are
    kept by its stamp, so a changed file is read again)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    write(tmp_path, "app/__init__.py", text="from app.layers import Scale\n")
    write(tmp_path, "app/layers.py", "app/layers_old.py", text=LAYER)
    project = Project(root=tmp_path)
    old = str(tmp_path / "app" / "layers_old.py")
    assert project.superseded(old, ["Scale"]) is not None
    write(tmp_path, "app/uses_old.py", text="from app.layers_old import Scale\n")
    project.forget_scan()
    assert project.superseded(old, ["Scale"]) is None
    (tmp_path / "app" / "uses_old.py").unlink()
    project.forget_scan()
    assert project.superseded(old, ["Scale"]) is not None
    write(tmp_path, "app/layers.py", text="import tensorflow as tf\n\n\nclass Shift:\n    pass\n")
    project.forget_scan()
    assert project.superseded(old, ["Scale"]) is None


def test_an_import_continued_with_a_backslash_names_its_module() -> None:
    """`from pkg.sub. \\` then `mod import x` on the next line imports `pkg.sub.mod`, as
    `from a \\` then `import b` imports `a.b`: the scan joins the lines as Python does."""
    text = (b"def load():\n    from app.backends. \\\n        tensorflow_backend import layers\n"
            b"from app \\\n    import helpers\n")
    assert imported_names(text) == {
        "app.backends.tensorflow_backend", "app.backends.tensorflow_backend.layers", "app",
        "app.helpers"}


def test_no_cache_keeps_nothing_and_finds_the_same(tmp_path: Path) -> None:
    write(tmp_path, "helpers.py", text=HELPERS)
    write(tmp_path, "train.py", text=TRAIN)
    result = run("check", "--no-cache", "--output-format", "json", "helpers.py", cwd=tmp_path)
    assert [f["code"] for f in json.loads(result.stdout)] == ["TFI006"]
    assert not (tmp_path / ".cache").exists()


def test_the_ignored_venv_is_not_searched_for_importers(repository: Path) -> None:
    write(repository, "helpers.py", text=HELPERS)
    write(repository, "tfenv/lib/python3.11/site-packages/train.py", text=TRAIN)
    assert checked(run("check", "--output-format", "json", "helpers.py",
                       cwd=repository)) == []
    (index,) = (repository / ".cache" / "tf-insight" / "imports").glob("*.json")
    assert not [key for key in json.loads(index.read_text())["files"] if "tfenv" in key]
    write(repository, "train.py", text=TRAIN)  # a module of the project: it counts
    assert checked(run("check", "--output-format", "json", "helpers.py",
                       cwd=repository)) == ["helpers.py"]


def test_in_site_packages_only_the_checked_package_is_searched(tmp_path: Path) -> None:
    """An installed environment is many projects: another package calling into the one
    checked gives it nothing (in a project folder, the same files would)."""
    for folder in ("env/lib/site-packages", "project"):
        write(tmp_path / folder, "pkg/__init__.py", text="")
        write(tmp_path / folder, "pkg/helpers.py", text=HELPERS)
        write(tmp_path / folder, "other/__init__.py", text="")
        write(tmp_path / folder, "other/train.py",
              text=TRAIN.replace("import helpers", "from pkg import helpers"))
    (tmp_path / "env/lib/site-packages/pkg-1.0.dist-info").mkdir()
    (tmp_path / "project/pyproject.toml").write_text("[project]\nname = 'p'\n")
    installed = run("check", "--output-format", "json", "env/lib/site-packages/pkg",
                    cwd=tmp_path)
    assert checked(installed) == []
    assert checked(run("check", "--output-format", "json", "project/pkg", cwd=tmp_path)) == [
        "project/pkg/helpers.py"]
