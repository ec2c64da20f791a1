# Real-user hazard: a hand-written graph-conv layer (a plain Python class) runs tf.matmul on a Keras Input tensor.
# After: https://github.com/XuexiongLuoMQ/ComGA/issues/5 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: A KerasTensor cannot be used as input to a TensorFlow function
import tensorflow as tf


class GraphDense:
    def __init__(self, input_dim, output_dim, act=tf.nn.relu):
        init = tf.random_normal_initializer(stddev=0.1)
        self.params = {"kernel": tf.Variable(init([input_dim, output_dim]), name="kernel")}
        self.act = act

    def __call__(self, inputs):
        return self._apply(inputs)

    def _apply(self, x):
        output = tf.matmul(x, self.params["kernel"])  # expect: TFI015
        return self.act(output)


features = tf.keras.Input(shape=(50,))
h1 = GraphDense(input_dim=50, output_dim=16)(features)
model = tf.keras.Model(features, h1)
