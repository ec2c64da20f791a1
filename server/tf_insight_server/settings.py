"""Editor settings: the `tfInsight` object of `initializationOptions` and
`workspace/didChangeConfiguration`, validated into typed dataclasses.

A bad value never stops the server: it is reported (the caller shows each problem with
`window/showMessage`) and that one setting falls back to its default.

Editor settings override `[tool.tf-insight]` of the workspace's pyproject.toml only when they
say something: `interpreter: null`, `select: []`, `ignore: []` and `keras: "auto"` leave the
pyproject value in force (they are also what an editor sends when the user set nothing).

`trustedWorkspace` is the editor's word that the user trusts the workspace (VS Code's workspace
trust). Only then does the server run a program the workspace names (pyproject's `python`) or
start a guided session; an editor that says nothing gets the untrusted behaviour.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from tf_insight import KERAS_SETTINGS, Config

TRACE_LEVELS = ("off", "messages", "verbose")
KEYS = ("interpreter", "select", "ignore", "keras", "session", "trace", "trustedWorkspace")
_CODE_PREFIX = re.compile(r"TFI\d{0,3}")


@dataclass(frozen=True)
class SessionSettings:
    max_hits: int = 3  # steps kept per probe per user call site (the engine's default)
    timeout_seconds: float = 300.0
    stop_after: str = ""  # `tf-insight trace --stop-after`'s WHEN; "" runs to the end


@dataclass(frozen=True)
class Settings:
    interpreter: str | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    keras: str = "auto"
    session: SessionSettings = field(default_factory=SessionSettings)
    trace: str = "off"
    trusted_workspace: bool = False

    def config_overrides(self) -> dict[str, Any]:
        """Arguments for `Config.merged`: None keeps the pyproject (or default) value."""
        return {
            "select": self.select or None,
            "ignore": self.ignore or None,
            "keras": None if self.keras == "auto" else self.keras,
            "python": self.interpreter,
        }

    def apply(self, base: Config) -> Config:
        return base.merged(**self.config_overrides())

    def to_dict(self) -> dict[str, Any]:
        """The settings in the client's keys (what `tfInsight/serverInfo` reports)."""
        return {"select": self.select, "ignore": self.ignore, "keras": self.keras,
                "interpreter": self.interpreter,
                "session": {"maxHits": self.session.max_hits,
                            "timeoutSeconds": self.session.timeout_seconds,
                            "stopAfter": self.session.stop_after},
                "trace": self.trace, "trustedWorkspace": self.trusted_workspace}


def parse(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from the client's object (with or without the `tfInsight` wrapper) and the list
    of problems found, each naming the setting, the bad value and the default used instead."""
    problems: list[str] = []
    if raw is None:
        return Settings(), problems
    if isinstance(raw, dict) and isinstance(raw.get("tfInsight"), dict):
        raw = raw["tfInsight"]
    if not isinstance(raw, dict):
        return Settings(), [f"tfInsight: settings must be an object, got {_show(raw)}; using defaults"]

    defaults = Settings()
    values: dict[str, Any] = {}

    interpreter = raw.get("interpreter", None)
    if interpreter is not None and interpreter != "":
        if not isinstance(interpreter, str):
            problems.append(_problem("interpreter", interpreter, "a path to a Python interpreter",
                                     "the server's interpreter"))
        elif not os.path.exists(os.path.expanduser(interpreter)):
            problems.append(f"tfInsight.interpreter: {interpreter!r} does not exist; "
                            "using the server's interpreter")
        else:
            values["interpreter"] = os.path.expanduser(interpreter)

    for key in ("select", "ignore"):
        codes = raw.get(key, None)
        if codes is None:
            continue
        if isinstance(codes, str):
            codes = [part.strip() for part in codes.split(",") if part.strip()]
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            problems.append(_problem(key, codes, "a list of rule codes such as [\"TFI001\"]",
                                     "[]"))
            continue
        upper = [code.strip().upper() for code in codes if code.strip()]
        bad = [code for code in upper if not _CODE_PREFIX.fullmatch(code)]
        if bad:
            problems.append(f"tfInsight.{key}: {', '.join(map(repr, bad))} "
                            f"{'is not a rule code' if len(bad) == 1 else 'are not rule codes'} "
                            "(TFI001, or a prefix such as TFI01); ignoring "
                            f"{'it' if len(bad) == 1 else 'them'}")
        values[key] = tuple(code for code in upper if code not in bad)

    keras = raw.get("keras", None)
    if keras is not None:
        if isinstance(keras, int) and not isinstance(keras, bool):
            keras = str(keras)
        if keras not in KERAS_SETTINGS:
            problems.append(_problem("keras", keras, " | ".join(f'"{k}"' for k in KERAS_SETTINGS),
                                     '"auto"'))
        else:
            values["keras"] = keras

    session_raw = raw.get("session", None)
    if session_raw is not None:
        if not isinstance(session_raw, dict):
            problems.append(_problem("session", session_raw, "an object", "the defaults"))
        else:
            values["session"] = _session(session_raw, defaults.session, problems)

    trace = raw.get("trace", None)
    if trace is not None:
        level = trace.get("server") if isinstance(trace, dict) else trace
        if level not in TRACE_LEVELS:
            problems.append(_problem("trace.server", level,
                                     " | ".join(f'"{t}"' for t in TRACE_LEVELS), '"off"'))
        else:
            values["trace"] = level

    trusted = raw.get("trustedWorkspace", None)
    if trusted is not None:
        if not isinstance(trusted, bool):
            problems.append(_problem("trustedWorkspace", trusted, "true or false", "false"))
        else:
            values["trusted_workspace"] = trusted

    settings = Settings(**values)
    try:  # the same validation the CLI and pyproject go through
        settings.apply(Config())
    except ValueError as error:  # pragma: no cover - the checks above catch these first
        problems.append(f"tfInsight: {error}; using defaults")
        settings = Settings()
    return settings, problems


def _session(raw: dict[str, Any], default: SessionSettings, problems: list[str]) -> SessionSettings:
    max_hits = raw.get("maxHits", default.max_hits)
    if isinstance(max_hits, bool) or not isinstance(max_hits, int) or max_hits < 1:
        problems.append(_problem("session.maxHits", max_hits, "a positive integer",
                                 str(default.max_hits)))
        max_hits = default.max_hits
    timeout = raw.get("timeoutSeconds", default.timeout_seconds)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        problems.append(_problem("session.timeoutSeconds", timeout, "a positive number",
                                 str(default.timeout_seconds)))
        timeout = default.timeout_seconds
    stop_after = raw.get("stopAfter", default.stop_after)
    if not isinstance(stop_after, str) or stop_after.strip():
        # Only then: the session package is not imported at start (a few tens of ms).
        from tf_insight.session import StopAfter

        try:
            StopAfter.parse(stop_after if isinstance(stop_after, str) else "")
        except ValueError:
            problems.append(_problem("session.stopAfter", stop_after,
                                     f"empty or one of {StopAfter.FORMS}", "no early stop"))
            stop_after = default.stop_after
    return SessionSettings(max_hits=max_hits, timeout_seconds=float(timeout),
                           stop_after=stop_after.strip())


def _problem(key: str, value: Any, expected: str, fallback: str) -> str:
    return f"tfInsight.{key} must be {expected}, got {_show(value)}; using {fallback}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
