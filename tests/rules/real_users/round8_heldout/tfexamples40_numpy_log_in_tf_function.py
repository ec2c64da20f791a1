# Real-user hazard: a labour-supply model computes a constant of its first-order condition with np.log on tensors and then solves the condition with NumPy Newton steps, inside a function decorated with @tf.function; the function works eagerly, but traced the tensors are symbolic and NumPy cannot take them.
# After: https://github.com/aymericdamien/TensorFlow-Examples/issues/40 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly the solver returns 5 hours of leisure ([0.8223 0.8157 0.8249 0.7999 0.8289]); the @tf.function version raises NotImplementedError: Cannot convert a symbolic tf.Tensor (truediv:0) to a numpy array (at the np.log line)
import numpy as np
import tensorflow as tf

MU, FI, KAPPA, WAGE, KON = 1.5, 0.5, 22.0, 0.63, 0.01


def leisure(z, eps, x0):
    constant = MU * np.log(WAGE * tf.exp(eps) * x0 / KON) + np.log(z)  # expect: TFI012
    hours = np.full(constant.shape, 0.5)
    for _ in range(30):
        value = MU / FI * np.log(hours) - (1 - MU) * KAPPA * hours ** (1 + 1 / FI) - constant
        slope = MU / FI / hours - (1 - MU) * KAPPA * (1 + 1 / FI) * hours ** (1 / FI)
        hours = np.clip(hours - value / slope, 1e-6, None)
    return hours


z = tf.sigmoid(tf.random.normal((5,), stddev=0.22, seed=1))
eps = tf.random.normal((5,), stddev=0.17, seed=2)
x0 = tf.exp(tf.random.normal((5,), stddev=0.2, seed=3))
print("eager:", np.round(leisure(z, eps, x0), 4))
print("tf.function:", tf.function(leisure)(z, eps, x0))
