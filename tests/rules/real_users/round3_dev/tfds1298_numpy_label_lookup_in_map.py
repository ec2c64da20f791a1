# Real-user hazard: a preprocessing function reads a label with .numpy() to look it up in a Python dict; it works on elements taken eagerly but not inside dataset.map, which traces it.
# After: https://github.com/tensorflow/datasets/issues/1298 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the function works on an element from dataset.take(1); dataset.map(attach_name) raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
import tensorflow as tf

CLASS_NAMES = {0: "cat", 1: "dog", 2: "bird"}

images = tf.random.uniform([6, 8, 8, 3])
labels = tf.constant([0, 1, 2, 1, 0, 2])
dataset = tf.data.Dataset.from_tensor_slices((images, labels))


def attach_name(image, label):
    name = CLASS_NAMES[int(label.numpy())]  # expect: TFI012
    return image, label, name


for image, label in dataset.take(1):
    print("eager element:", attach_name(image, label)[2])

named = dataset.map(attach_name)
print(next(iter(named.as_numpy_iterator()))[2])
