"""A file that Python cannot parse.

## What it does
Reports a syntax error (or a file that is not valid UTF-8 Python) instead of analysing it. The
other files are still checked.

## Why is this bad?
Python would refuse to import the module; no graph-mode hazard in it can be checked until it
parses.

## Example
```python
def f(x)
    return x
```

## Use instead
```python
def f(x):
    return x
```

## References
- [Python: Errors and Exceptions](https://docs.python.org/3/tutorial/errors.html#syntax-errors)
"""

from tf_insight.findings import Severity

CODE = "TFI000"
NAME = "syntax-error"
SEVERITY = Severity.ERROR
