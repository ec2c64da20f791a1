# Real-user hazard: a 3D model builder turns a Dense embedding of the residue label into an extra input channel with tf.reshape on the Dense output; this worked with the Keras of TF <= 2.15, and with Keras 3 building the model fails.
# After: https://github.com/nekitmm/DLPacker/issues/13 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): building the model raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (at tf.reshape); with tf-keras (TF_USE_LEGACY_KERAS=1) the same code builds the model (12,924 params)
import tensorflow as tf

GRID = 8


def build_packer(channels=5, residue_types=20):
    box = tf.keras.Input((GRID, GRID, GRID, channels))
    residue = tf.keras.Input((residue_types,))
    label_volume = tf.keras.layers.Dense(GRID * GRID * GRID, activation="relu")(residue)
    label_volume = tf.reshape(label_volume, (-1, GRID, GRID, GRID, 1))  # expect: TFI015
    x = tf.keras.layers.Concatenate(axis=-1)([box, label_volume])
    x = tf.keras.layers.Conv3D(8, 3, padding="same", activation="relu")(x)
    out = tf.keras.layers.Conv3D(4, 3, padding="same")(x)
    return tf.keras.Model([box, residue], out)


packer = build_packer()
packer.summary()
