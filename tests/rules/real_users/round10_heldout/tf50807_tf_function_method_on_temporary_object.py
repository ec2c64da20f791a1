# Real-user hazard: a method decorated with @tf.function is called on an object created in the same expression; the tf.function holds its instance only weakly, so the temporary object can be collected before the traced method runs and self is None inside it.
# After: https://github.com/tensorflow/tensorflow/issues/50807 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): on a named instance the traced method returns 6.0; on Scaler(2.0) created in the call expression it raises AttributeError: 'NoneType' object has no attribute 'factor' (at the return self.factor * values line)
import tensorflow as tf


class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @tf.function
    def scale(self, values):
        return self.factor * values


kept = Scaler(2.0)
print("named instance:", kept.scale(tf.constant(3.0)).numpy())
print("temporary instance:", Scaler(2.0).scale(tf.constant(3.0)).numpy())  # expect: NEW-tf-function-method-on-temporary
