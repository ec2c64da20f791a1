# Real-user hazard: a loss in a traced training step flattens per example with the static x.shape[0]; the step is traced with a None batch dimension, so the reshape gets None.
# After: https://github.com/yaojieliu/CVPR2019-DeepTreeLearningForZeroShotFaceAntispoofing/issues/7 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the loss works eagerly (returns a number); the first call of train_one_step raises TypeError: Failed to convert elements of [None, -1] to Tensor
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((16, 16, 3)), tf.keras.layers.Conv2D(1, 3, padding="same")])
optimizer = tf.keras.optimizers.Adam()


def map_l1_loss(pred, target):
    pred_shape = pred.get_shape()
    per_example = tf.reshape(tf.abs(pred - target), [pred_shape[0], -1])  # expect: NEW-static-shape-none
    return tf.reduce_mean(tf.reduce_mean(per_example, axis=1))


@tf.function(input_signature=[tf.TensorSpec([None, 16, 16, 3]), tf.TensorSpec([None, 16, 16, 1])])
def train_one_step(images, depth_maps):
    with tf.GradientTape() as tape:
        loss = map_l1_loss(model(images, training=True), depth_maps)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables, strict=True))
    return loss


images, maps = np.random.rand(8, 16, 16, 3).astype("float32"), np.random.rand(8, 16, 16, 1).astype("float32")
print("eager loss:", float(map_l1_loss(model(images), maps)))
train_one_step(images, maps)
