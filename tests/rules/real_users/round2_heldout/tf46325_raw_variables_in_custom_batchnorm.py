# Real-user hazard: a hand-written batch-norm layer keeps scale, offset and moving statistics in raw tf.Variables made in __init__.
# After: https://github.com/tensorflow/tensorflow/issues/46325 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after fit, model.variables lists only the Dense kernel and bias; the batch-norm layer has 0 weights (gamma, beta and the moving statistics are untracked)
import numpy as np
import tensorflow as tf


class SimpleBatchNorm(tf.keras.layers.Layer):
    def __init__(self, units, momentum=0.9, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.gamma = tf.Variable(tf.ones([units]), name="gamma")
        self.beta = tf.Variable(tf.zeros([units]), name="beta")
        self.moving_mean = tf.Variable(tf.zeros([units]), trainable=False)  # expect: TFI009
        self.moving_var = tf.Variable(tf.ones([units]), trainable=False)

    def call(self, inputs, training=None):
        if training:
            mean, var = tf.nn.moments(inputs, axes=[0])
            self.moving_mean.assign(self.momentum * self.moving_mean + (1 - self.momentum) * mean)
            self.moving_var.assign(self.momentum * self.moving_var + (1 - self.momentum) * var)
        else:
            mean, var = self.moving_mean, self.moving_var
        return self.gamma * (inputs - mean) / tf.sqrt(var + 1e-3) + self.beta


model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(3), SimpleBatchNorm(3)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(64, 3), np.random.rand(64, 3), epochs=1, verbose=0)
print("model variables:", [v.path for v in model.variables])
print("batch-norm layer weights:", len(model.layers[-1].weights))
