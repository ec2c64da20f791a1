# Real-user hazard: a segmentation helper builds its network (and loads its weights) every time it is called, then predicts; run over a list of scans, each call traces a new predict function.
# After: https://github.com/ANTsX/ANTsPyNet/issues/138 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): from the 5th scan on, 'WARNING: 5 out of the last 5 calls to <function TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed ...> triggered tf.function retracing' (and 6 out of 6 at the 6th)
import numpy as np
import tensorflow as tf


def build_mask_net():
    inputs = tf.keras.Input(shape=(16, 16, 1))
    x = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    outputs = tf.keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
    return tf.keras.Model(inputs, outputs)


def extract_mask(scan):
    net = build_mask_net()
    return net.predict(scan[None, ..., None], verbose=0)[0, ..., 0] > 0.5  # expect: NEW-model-rebuilt-in-loop


scans = [np.random.rand(16, 16).astype("float32") for _ in range(8)]
for i, scan in enumerate(scans):
    print("scan", i, "mask voxels:", int(extract_mask(scan).sum()))
