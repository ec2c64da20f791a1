"""TFI006 (a `tf.function` that modifies a container it is given): a `@tf.function` map
function that writes into its own dict argument, and the same function undecorated.

On TF 2.21 the decorated one raises `ValueError: ... should not modify its Python input
arguments` when `Dataset.map` traces it (and when called directly); the plain one works: the
dict `map` gives a plain function is made for the trace. A copy (`features = dict(features)`)
is allowed in both.

    .venv/bin/python bench/precision/checks/dict_argument_modified_in_tf_function.py
"""

import tensorflow as tf


def cast_flags(features):
    for name in features:
        features[name] = tf.cast(features[name], tf.float32) * 2.0
    return features


def cast_flags_copy(features):
    features = dict(features)
    for name in features:
        features[name] = tf.cast(features[name], tf.float32) * 2.0
    return features


flags = tf.data.Dataset.from_tensor_slices({"seen": [1, 0], "clicked": [0, 1]})
for label, function in (("plain", cast_flags), ("tf.function", tf.function(cast_flags)),
                        ("tf.function on a copy", tf.function(cast_flags_copy))):
    try:
        print(label, [element["seen"].numpy() for element in flags.map(function)])
    except ValueError as error:
        print(label, "raised ValueError:", str(error).splitlines()[0][:100])
