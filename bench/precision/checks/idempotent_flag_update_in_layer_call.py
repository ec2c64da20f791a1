"""TFI006 on an idempotent trace-time update (qkeras 0.9.0 qlayers.py:375, finding
`self.will_ema_freeze = self.will_ema_freeze and self.trainable` in a layer's `call`).
A layer ANDs a Python bool attribute with `self.trainable` in `call` and uses it to pick a graph
branch. The script trains the same model in graph mode (`fit`) and eagerly (`run_eagerly=True`),
through three phases: trainable, frozen (+ recompile, as Keras requires after changing
`trainable`), unfrozen again (+ recompile). It prints how often `call`'s Python body ran and the
flag after each phase. The body runs once per trace in graph mode and once per step eagerly, but
the flag comes out the same in both modes: the update only depends on Python state that is fixed
for a trace, and repeating `a = a and b` changes nothing.

    .venv/bin/python bench/precision/checks/idempotent_flag_update_in_layer_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/idempotent_flag_update_in_layer_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras


class Gate(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flag = True
        self.body_runs = 0

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(1,), initializer="ones")

    def call(self, x):
        self.body_runs += 1
        self.flag = self.flag and self.trainable  # the pattern under test
        return x * self.w * (0.5 if self.flag else 1.0)


def run(eager):
    inp = keras.Input((2,))
    gate = Gate()
    model = keras.Model(inp, keras.layers.Dense(1)(gate(inp)))
    x, y = np.ones((16, 2), "float32"), np.zeros((16, 1), "float32")
    out = []
    for trainable in (True, False, True):
        gate.trainable = trainable
        model.compile("sgd", "mse", run_eagerly=eager)
        before = gate.body_runs
        model.fit(x, y, batch_size=4, epochs=2, verbose=0)  # 8 steps
        out.append((trainable, gate.body_runs - before, gate.flag))
    return out


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
graph, eager = run(False), run(True)
for (t, g_runs, g_flag), (_, e_runs, e_flag) in zip(graph, eager, strict=True):
    print(f"trainable={t!s:5}  graph: body ran {g_runs:2}x flag={g_flag!s:5}  "
          f"eager: body ran {e_runs:2}x flag={e_flag!s:5}")
print("flag identical in graph and eager mode:", [r[2] for r in graph] == [r[2] for r in eager])
