# Real-user hazard: a sentiment dataset keeps only some star ratings and relabels them with a Python dict; once the relabelling runs as a tf.data map function on tensors, the dict is indexed with a symbolic tensor, which is unhashable (and `.numpy()` to get a key does not exist while tracing).
# After: https://github.com/google-research/reverse-engineering-neural-networks/pull/43 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): on Python values the relabelling gives {'text': 'fine', 'stars': 3, 'label': 1}; Dataset.map raises TypeError: Tensor is unhashable. Instead, use tensor.ref() as the key. (at the dict lookup)
import tensorflow as tf

STARS_TO_CLASS = {1: 0, 3: 1, 5: 2}


def relabel(example):
    example["label"] = STARS_TO_CLASS[example["stars"]]  # expect: NEW-tensor-as-dict-key
    return example


print("on Python values:", relabel({"text": "fine", "stars": 3}))
reviews = tf.data.Dataset.from_tensor_slices(
    {"text": ["awful", "so-so", "great", "bad"], "stars": [1, 3, 5, 1]})
kept = reviews.filter(lambda example: tf.reduce_any(example["stars"] == [1, 3, 5]))
for example in kept.map(relabel):
    print(example["stars"].numpy(), example["label"].numpy())
