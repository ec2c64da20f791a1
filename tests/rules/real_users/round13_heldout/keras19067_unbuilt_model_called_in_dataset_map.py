# Real-user hazard: a Keras 3 preprocessing model with no Input is first called inside a Dataset.map function, so it is built (its normalisation constants made) in that traced graph; mapping a dataset with it again reads tensors of the first map's graph and fails.
# After: https://github.com/keras-team/keras/issues/19067 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the first map works (its first row is printed); the second raises AttributeError: 'SymbolicTensor' object has no attribute '_datatype_enum' (the same model given keras.Input(shape=(2,)) as its first entry, so that it is built eagerly, maps three times without error)
import keras
import tensorflow as tf

normalizer = keras.Sequential([keras.layers.Normalization(mean=[0.5, 1.0], variance=[0.25, 4.0])])
pairs = tf.data.Dataset.from_tensor_slices((tf.random.uniform([6, 2]), tf.range(6))).batch(3)

for attempt in range(3):
    normalized = pairs.map(lambda x, y: (normalizer(x), y))  # expect: NEW-keras-model-built-in-dataset-map
    first, _ = next(iter(normalized))
    print("map", attempt, "first row", first.numpy()[0])
