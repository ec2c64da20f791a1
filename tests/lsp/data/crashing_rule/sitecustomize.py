"""Loaded at interpreter start by the robustness test (PYTHONPATH): adds a rule that always
raises, to show the server logs it once and keeps serving the other rules."""

try:
    from tf_insight.check import rules
    from tf_insight.findings import Severity

    def _explode(module):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom from a broken rule")
        yield

    rules.RULES.append(rules.Rule(code="TFI099", name="always-crashes",
                                  severity=Severity.WARNING, doc="Crashes.", check=_explode))
    rules.BY_CODE["TFI099"] = rules.RULES[-1]
except Exception:  # never break the interpreter the test runs
    pass
