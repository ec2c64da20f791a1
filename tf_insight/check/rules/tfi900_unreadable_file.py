"""A file or folder that could not be read.

## What it does
Reports a Python file, or a folder to be checked, that the operating system would not let
TF Insight read (no permission, a broken link, a vanished file). Nothing in it was checked;
the other files still are.

## Why is this bad?
A check that skips a file silently says "All checks passed!" about code it never read, and a
CI job that runs it passes. The finding makes the gap visible and sets the exit status.

## Example
```console
$ chmod 000 model.py
$ tf-insight check .
model.py:1:1: TFI900 cannot read model.py: Permission denied
```

## Use instead
```console
$ chmod 644 model.py   # or exclude it: [tool.tf-insight] exclude = ["model.py"]
```

## References
- [ruff's E902 io-error, the same idea](https://docs.astral.sh/ruff/rules/io-error/)
"""

from tf_insight.findings import Severity

CODE = "TFI900"
NAME = "unreadable-file"
SEVERITY = Severity.ERROR
