# Real-user hazard: a 3D augmentation written for NumPy volumes (it calls ndarray methods such as .astype on its input) is used as a tf.data map function; Dataset.map traces the function with symbolic tensors, which have no NumPy methods.
# After: https://github.com/ZFTurbo/volumentations/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the augmentation on a NumPy volume gives float32 (8, 8, 8); Dataset.map raises AttributeError: SymbolicTensor object has no attribute 'astype' (in IntensityShift.__call__)
import numpy as np
import tensorflow as tf


class IntensityShift:
    """Adds a fixed offset to a volume, NumPy style."""

    def __init__(self, offset):
        self.offset = offset

    def __call__(self, volume):
        volume = volume.astype(np.float32)  # expect: NEW-python-method-on-symbolic-tensor
        return volume + self.offset


shift = IntensityShift(0.25)
volumes = np.random.rand(6, 8, 8, 8)
labels = np.random.randint(0, 2, 6)
print("on a NumPy volume:", shift(volumes[0]).dtype, shift(volumes[0]).shape)


def augment(volume, label):
    return shift(volume), label


dataset = tf.data.Dataset.from_tensor_slices((volumes, labels)).map(augment).batch(2)
for batch_volumes, batch_labels in dataset:
    print("augmented batch:", batch_volumes.shape, batch_labels.shape)
