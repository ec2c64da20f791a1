"""Expected results written on the line they belong to, as in the fixtures of flake8-bugbear:
`x = f()  # expect: TFI004` (several codes: `# expect: TFI004, TFI012`)."""

from __future__ import annotations

import re
from pathlib import Path

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>TFI\d{3}(?:\s*,\s*TFI\d{3})*)")
SETTINGS = re.compile(r"^#\s*settings:\s*(?P<pairs>.+)$", re.M)


def expected(path: Path, code: str | None = None) -> set[tuple[int, str]]:
    """(line, code) pairs marked in a file, optionally only for one code."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for marked in re.split(r"\s*,\s*", match.group("codes")):
                if code is None or marked == code:
                    found.add((number, marked))
    return found


def settings(path: Path) -> dict[str, str]:
    """`# settings: keras=2` on a line of its own sets analyzer settings for that fixture."""
    match = SETTINGS.search(path.read_text(encoding="utf-8"))
    if not match:
        return {}
    return dict(pair.split("=", 1) for pair in match.group("pairs").split())
