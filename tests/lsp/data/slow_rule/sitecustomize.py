"""Loaded at interpreter start by the robustness tests (PYTHONPATH): adds a rule that, in a
file containing `# tfi-test: slow`, takes two minutes — an analysis that would pin the worker,
to show the server answers `shutdown` at once and bounds one analysis's time."""

try:
    import time

    from tf_insight.check import rules
    from tf_insight.findings import Severity

    def _slow(module):  # type: ignore[no-untyped-def]
        if "# tfi-test: slow" in module.source.text:
            time.sleep(120)
        return
        yield

    rules.RULES.append(rules.Rule(code="TFI098", name="takes-forever",
                                  severity=Severity.WARNING, doc="Slow.", check=_slow))
    rules.BY_CODE["TFI098"] = rules.RULES[-1]
except Exception:  # never break the interpreter the test runs
    pass
