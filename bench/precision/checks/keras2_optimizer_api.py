"""On TF 2.21 with Keras 3, an optimizer written to Keras 2's OptimizerV2 API (`_create_slots`,
`_resource_apply_dense`) cannot train: Keras 3 calls `update_step`, which it does not define,
and fit raises NotImplementedError. Code defining `_resource_apply_dense` runs on Keras 2."""
import numpy as np
import tensorflow as tf


class SignStep(tf.keras.optimizers.Optimizer):
    def __init__(self, learning_rate=0.1, name="SignStep"):
        super().__init__(learning_rate=learning_rate, name=name)

    def _create_slots(self, var_list):
        pass

    def _resource_apply_dense(self, grad, var):
        return var.assign_sub(0.1 * tf.sign(grad))


model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
model.compile(optimizer=SignStep(), loss="mae")
try:
    model.fit(np.ones((4, 1)), np.ones((4, 1)), verbose=0)
    print("fit ran")
except NotImplementedError as error:
    print("NotImplementedError", error)
