"""A class whose `__init__` calls `tf.config.run_functions_eagerly(True)`: its `@tf.function`
method then runs eagerly, so a new optimizer per call and `.numpy()` inside it work; without
that call the same method fails while tracing.

    .venv/bin/python bench/precision/checks/run_functions_eagerly_in_constructor.py
"""
import tensorflow as tf


class Regression(tf.keras.Model):
    def __init__(self, eager: bool) -> None:
        super().__init__()
        if eager:
            tf.config.run_functions_eagerly(True)
        self.w = tf.Variable(1.0)

    @tf.function
    def train(self, steps=3):
        optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
        total = 0.0
        for _ in range(steps):
            with tf.GradientTape() as tape:
                loss = (self.w - 3.0) ** 2
            optimizer.apply_gradients(zip(tape.gradient(loss, [self.w]), [self.w], strict=True))
            total += loss.numpy()
        return total


for eager in (False, True):
    model = Regression(eager)
    try:
        print(f"eager={eager}:", [round(model.train(), 3) for _ in range(2)])
    except Exception as error:
        print(f"eager={eager}:", type(error).__name__)
