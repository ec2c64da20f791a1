# Real-user hazard: a one-class network's loss reads the hyperplane bias r from the object and then replaces it with a quantile of the current scores, so that r follows training; in a traced loss the new r is a graph tensor, and the next graph that reads r gets a tensor of another graph.
# After: https://github.com/danielenricocahall/One-Class-NeuralNetwork/issues/6 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): compiled with run_eagerly=True, fit trains and r ends at -0.8950; compiled normally, fit raises InaccessibleTensorError: <tf.Tensor 'compile_loss/hinge/strided_slice:0' shape=() dtype=float32> is out of scope and cannot be used here (r was set in the one_step_on_data graph and read from multi_step_on_iterator)
import keras
import numpy as np
import tensorflow as tf


class OneClassNet:
    def __init__(self, nu=0.1):
        self.nu = nu
        self.r = 1.0
        self.model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="sigmoid"), keras.layers.Dense(1)])

    def hinge(self, _, scores):
        loss = self.r + tf.reduce_mean(tf.maximum(0.0, self.r - scores)) / self.nu
        ranked = tf.sort(tf.reshape(scores, [-1]))
        self.r = ranked[int(self.nu * 32)]  # expect: TFI006
        return loss - self.r


normal = np.random.RandomState(0).normal(size=(256, 5)).astype("float32")
for run_eagerly in (True, False):
    net = OneClassNet()
    net.model.compile(optimizer="adam", loss=net.hinge, run_eagerly=run_eagerly)
    net.model.fit(normal, np.zeros(256), batch_size=32, epochs=2, verbose=0)
    print(f"run_eagerly={run_eagerly}: r after training {float(net.r):.4f}")
