"""A tf.data element that is a tuple stays a Python tuple inside a tf.function: slicing it
(`element[1:]`) gives a tuple of tensors, and a comprehension over that slice iterates the
tuple, not a tensor (thetaflow==0.0.41's evaluate_dataset_loss, round 23 dev: TFI013 FALSE)."""

import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices(
    (tf.ones((4, 3)), tf.ones((4,)), tf.ones((4, 1)))).batch(2)


@tf.function
def total(data):
    result = tf.constant(0.0)
    for element in data:
        targets = element[1:]
        targets = tuple([tf.expand_dims(t, -1) if len(t.shape) == 1 else t for t in targets])
        result += tf.add_n([tf.reduce_sum(t) for t in targets])
    return result


print("element type inside the function: tuple;", "total:", float(total(dataset)))
