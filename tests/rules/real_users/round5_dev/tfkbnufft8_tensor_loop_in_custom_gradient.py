# Real-user hazard: a gridding function with a hand-written gradient loops over the batch with `for b in tf.range(...)`; AutoGraph does not convert functions wrapped by tf.custom_gradient, so the loop fails as soon as the function is traced (here by dataset.map), while eager calls work.
# After: https://github.com/zaccharieramzi/tfkbnufft/issues/8 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works ((2, 16, 3)); dataset.map raises OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed (at the for loop in regrid)
import tensorflow as tf


@tf.custom_gradient
def regrid(samples, weights):
    grids = tf.TensorArray(tf.float32, size=tf.shape(samples)[0])
    for b in tf.range(tf.shape(samples)[0]):  # expect: TFI013
        grids = grids.write(b, tf.tensordot(weights, samples[b], axes=1))
    gridded = grids.stack()

    def grad(upstream):
        return tf.einsum("gk,bgc->bkc", weights, upstream), tf.zeros_like(weights)

    return gridded, grad


weights = tf.random.uniform([16, 8])
print("eager:", regrid(tf.random.normal([2, 8, 3]), weights).shape)

acquisitions = tf.data.Dataset.from_tensor_slices(tf.random.normal([6, 2, 8, 3]))
gridded = acquisitions.map(lambda samples: regrid(samples, weights))
print(next(iter(gridded)).shape)
