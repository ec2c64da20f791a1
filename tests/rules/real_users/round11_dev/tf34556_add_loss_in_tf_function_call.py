# Real-user hazard: following the advice to decorate a subclassed model's call with @tf.function, the model also adds an activity penalty with self.add_loss inside call; the penalty tensor is made inside the inner tf.function's graph and kept on the model, and the train step that fit traces then reads a tensor from another graph.
# After: https://github.com/tensorflow/tensorflow/issues/34556 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives (3, 2); fit raises InaccessibleTensorError: <tf.Tensor 'mul:0' shape=() dtype=float32> is out of scope and cannot be used here (defined in FuncGraph(name=call), read from FuncGraph(name=one_step_on_data))
import keras
import numpy as np
import tensorflow as tf


class PenalizedClassifier(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(8, activation="relu")
        self.out = keras.layers.Dense(2, activation="softmax")

    @tf.function
    def call(self, inputs):
        hidden = self.hidden(inputs)
        self.add_loss(0.01 * tf.reduce_sum(tf.abs(hidden)))  # expect: TFI006
        return self.out(hidden)


rng = np.random.RandomState(6)
x = rng.normal(size=(32, 4)).astype("float32")
y = rng.randint(0, 2, size=(32,))
model = PenalizedClassifier()
print("eager call:", model(x[:3]).shape)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
print("fit done, losses:", model.losses)
