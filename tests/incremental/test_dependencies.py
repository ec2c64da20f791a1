"""Each way a finding in one top-level statement depends on another: an edit of the other
gets the findings of a fresh analysis, though most of the file is reused.

Every case checks that the edit changes a finding outside the edited statement (so reusing
that statement's findings would be wrong), and the ones that reuse check that they did."""

from __future__ import annotations

from textwrap import dedent

import pytest

from tf_insight.check import incremental
from tf_insight.check.analyzer import Analysis, analyze_source
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile
from tf_insight.findings import Finding


def edit(before: str, after: str) -> tuple[list[Finding], Analysis]:
    """The findings before the edit, and the incremental analysis after it (checked against
    a fresh one)."""
    project = Project()
    source = SourceFile.parse("m.py", before, editable=True)
    first, memo = incremental.analyze(source, project)
    analysis, _ = incremental.analyze(source.edited(after), project, memo)
    fresh = analyze_source(after, "m.py", Project())
    assert analysis.findings == fresh.findings
    assert fresh.module is not None and analysis.graph_facts == fresh.module.graph.facts()
    return first.findings, analysis


def lines(findings: list[Finding], code: str) -> list[int]:
    return [finding.span.line for finding in findings if finding.code == code]


HELPERS = dedent("""\
    import numpy as np
    import tensorflow as tf


    @tf.function
    def step(x):
        return middle(x)


    def middle(x):
        return inner(x)


    def inner(x):
        return deepest(x)


    def deepest(x):
        return np.asarray(x)


    def unrelated(y):
        return y + 1
    """)


def test_a_helper_three_calls_away_sees_what_the_graph_function_passes() -> None:
    """`deepest` gets a tensor because `step` passes one down three calls: when `step` passes
    a number, the conversion in `deepest` is no longer reported."""
    before, analysis = edit(HELPERS, HELPERS.replace("return middle(x)", "return middle(1.0)"))
    assert 19 in lines(before, "TFI012") and lines(analysis.findings, "TFI012") == []
    assert analysis.reanalysed is not None and analysis.reanalysed < 6  # `unrelated` reused


def test_a_graph_function_sees_what_its_helper_does() -> None:
    """The call of a helper that converts its argument to NumPy is reported at the call."""
    before, analysis = edit(HELPERS, HELPERS.replace("return inner(x)", "return tf.identity(x)"))
    assert 19 in lines(before, "TFI012") and lines(analysis.findings, "TFI012") == []


def test_a_mutation_elsewhere_is_seen_by_the_graph_function_that_reads_it() -> None:
    text = dedent("""\
        import tensorflow as tf

        history = []


        @tf.function
        def step(x):
            return x + len(history)


        def reset():
            history.clear()


        for _ in range(3):
            step(tf.constant(1))
            reset()
        """)
    before, analysis = edit(text.replace("history.clear()", "history.copy()"), text)
    assert lines(before, "TFI003") == [] and lines(analysis.findings, "TFI003") == [8]


def test_a_global_write_elsewhere_is_seen_by_the_graph_function_that_reads_it() -> None:
    """`global scale` binds the module's `scale`: its readers are neighbours of the writer."""
    text = dedent("""\
        import tensorflow as tf

        scale = 1.0


        @tf.function
        def step(x):
            return x * scale


        def set_scale(value):
            global scale
            print(value)


        for epoch in range(3):
            set_scale(epoch)
            step(tf.constant(1.0))
        """)
    before, analysis = edit(text, text.replace("    print(value)", "    scale = value"))
    assert lines(before, "TFI003") == [] and lines(analysis.findings, "TFI003") == [8]


@pytest.mark.parametrize(("binding", "unbound", "code"), [
    ("clip = tf.custom_gradient(identity)", "clip = tf.identity(identity)", "TFI001"),
    ("rng = np.random.default_rng()", "rng = np.zeros(())", "TFI017"),
])
def test_a_name_bound_in_any_function_is_looked_up_everywhere(
        binding: str, unbound: str, code: str) -> None:
    """TFI001 and TFI017 look names up whatever function binds them (they declare it)."""
    text = dedent(f"""\
        import numpy as np
        import tensorflow as tf


        def setup(identity):
            {binding}
            return clip, rng


        @tf.function
        def step(x):
            return clip(x, training=True) + rng.normal()
        """)
    before, analysis = edit(text, text.replace(binding, unbound))
    assert lines(before, code) == [12] and lines(analysis.findings, code) == []


def test_a_callback_that_starts_reading_what_a_step_keeps_is_seen_by_the_step() -> None:
    """TFI006 in a train step depends on a callback's `self.model.<name>` (it declares it)."""
    text = dedent("""\
        import keras
        import tensorflow as tf


        class Scored(keras.Model):
            def train_step(self, data):
                x, y = data
                y_pred = self(x, training=True)
                self.last = (y, y_pred)
                return {"loss": tf.reduce_mean(y_pred)}


        class Collector(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                print(self.model.other)
        """)
    before, analysis = edit(text, text.replace("self.model.other", "self.model.last"))
    assert lines(before, "TFI006") == [] and lines(analysis.findings, "TFI006") == [9]


def test_an_import_in_a_function_body_changes_every_function() -> None:
    """The import map is the module's: `import numpy as np` in any function binds `np` in
    every function, where the module's top does not bind it."""
    text = dedent("""\
        import tensorflow as tf


        def load():
            import json as js
            return js


        @tf.function
        def step(x):
            return np.square(x)
        """)
    before, analysis = edit(text, text.replace("import json as js", "import numpy as np"))
    assert lines(before, "TFI012") == [] and lines(analysis.findings, "TFI012") == [11]


def test_a_graph_context_that_changes_is_seen_beyond_the_reach() -> None:
    """Behind a mode check, the call no longer makes its callees graph functions, down to
    the sixth, further than references are followed."""
    chain = "".join(f"\n\ndef f{i}(x):\n    return f{i + 1}(x)\n" for i in range(1, 6))
    others = "".join(f"\n\ndef other{i}(x):\n    return x\n" for i in range(10))
    text = ("import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    f1(x)\n    return x\n"
            + chain + "\n\ndef f6(x):\n    print(tf.reduce_sum(x))\n" + others)
    before, analysis = edit(text, text.replace("    f1(x)", "    if tf.executing_eagerly(): f1(x)"))
    assert lines(before, "TFI006") == [31] and lines(analysis.findings, "TFI006") == []
    assert analysis.reanalysed is not None


def test_findings_after_an_added_line_move_with_their_statement() -> None:
    text = dedent("""\
        import tensorflow as tf


        def eager(x):
            return x


        @tf.function
        def step(x):
            print(x)
            return x
        """)
    before, analysis = edit(text, text.replace("    return x\n", "    y = x\n    return y\n", 1))
    assert lines(before, "TFI006") == [10] and lines(analysis.findings, "TFI006") == [11]


def test_a_finding_that_points_into_a_moved_statement_is_made_again() -> None:
    """TFI003 names the line of the reassignment, after the function: when that moves, so
    does the message."""
    text = dedent("""\
        import tensorflow as tf


        @tf.function
        def step(x):
            return x * scale


        def other():
            return 1


        scale = 1.0
        step(tf.constant(1.0))
        scale = 2.0
        step(tf.constant(1.0))
        """)
    before, analysis = edit(text, text.replace("    return 1\n", "    a = 1\n    return a\n"))
    assert [f.message for f in before if f.code == "TFI003"] != \
        [f.message for f in analysis.findings if f.code == "TFI003"]
    assert "at line 16" in next(f.message for f in analysis.findings if f.code == "TFI003")


def test_a_cycle_of_tf_functions_longer_than_the_reach_is_seen_whole() -> None:
    """Six tf.functions calling each other in a ring: the call that closes it is a new
    reference, so everything is analysed again."""
    names = [f"f{i}" for i in range(6)]
    ring = "import tensorflow as tf\n\n" + "".join(
        f"\n@tf.function\ndef {name}(x):\n    return {names[(i + 1) % 6]}(x)\n\n"
        for i, name in enumerate(names))
    before, analysis = edit(ring, ring.replace("return f0(x)", "return x"))
    assert lines(before, "TFI019") and not lines(analysis.findings, "TFI019")


LAYERS = "import tensorflow as tf\nfrom tensorflow import keras\n" + "".join(f'''

class Block{i}(keras.layers.Layer):
    def build(self, shape):
        self.dense = keras.layers.Dense(4)

    def call(self, inputs):
        hidden = self.dense(inputs)
        return hidden
''' for i in range(20))


def test_typing_in_a_method_analyses_its_class_again_and_nothing_else() -> None:
    """What makes a keystroke cheap: the other 19 classes' findings are reused."""
    typed = LAYERS.replace("        return hidden\n", "        scaled = tf.reduce_sum(hidden)\n"
                                                      "        return hidden\n", 1)
    typed = typed.replace("        hidden = self.dense(inputs)\n",
                          "        hidden = self.dense(inputs)\n        print(hidden)\n", 1)
    _, analysis = edit(LAYERS, typed)
    assert analysis.reanalysed == 1
    assert lines(analysis.findings, "TFI006") == [11]


def test_a_local_named_like_a_module_function_still_ties_the_two() -> None:
    """The model takes `helper(x)` for the module's `helper` even where a local shadows it:
    an edit of the module's `helper` must reach `step`."""
    text = dedent("""\
        import numpy as np
        import tensorflow as tf


        @tf.function
        def step(x):
            helper = tf.identity
            return helper(x)


        def helper(x):
            return np.asarray(x)
        """) + "".join(f"\n\ndef other{i}(x):\n    return x\n" for i in range(10))
    before, analysis = edit(text, text.replace("np.asarray(x)", "tf.identity(x)"))
    assert lines(before, "TFI012") == [8, 12] and lines(analysis.findings, "TFI012") == []
    assert analysis.reanalysed is not None


def test_a_file_with_more_findings_of_a_rule_than_it_shows_is_analysed_whole() -> None:
    """A rule shows its first findings up to a limit: after an edit of a file that has more,
    the same ones as a fresh analysis."""
    prints = "".join(f"\n\n@tf.function\ndef f{i}(x):\n    print(x)\n    return x\n"
                     for i in range(30))
    text = "import tensorflow as tf\n" + prints
    project = Project()
    source = SourceFile.parse("m.py", text, editable=True)
    memo = incremental.analyze(source, project, limit=20)[1]
    edited = text + "\n\n@tf.function\ndef last(x):\n    print(x)\n    return x\n"
    analysis, _ = incremental.analyze(source.edited(edited), project, memo, limit=20)
    fresh = incremental.analyze(SourceFile.parse("m.py", edited, editable=True), Project(),
                                limit=20)[0]
    assert analysis.findings == fresh.findings and len(lines(analysis.findings, "TFI006")) == 20
    assert analysis.reanalysed is None
