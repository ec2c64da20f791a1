# Real-user hazard: seqeval's accuracy_score (pure Python over label sequences) is passed to compile as a Keras metric; Keras calls it inside the traced train step with symbolic y_true / y_pred tensors.
# After: https://github.com/chakki-works/seqeval/issues/10 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3, seqeval 1.2.2): accuracy_score works on Python lists (0.667); fit raises OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed (in seqeval's accuracy_score, `for s in y_true`)
import numpy as np
import tensorflow as tf
from seqeval.metrics import accuracy_score

TAGS = ["O", "B-LOC", "I-LOC"]

print("on Python lists:", accuracy_score([["O", "B-LOC", "I-LOC"]], [["O", "B-LOC", "O"]]))

tagger = tf.keras.Sequential([
    tf.keras.Input((12,), dtype="int32"),
    tf.keras.layers.Embedding(50, 8),
    tf.keras.layers.Dense(len(TAGS), activation="softmax"),
])
tagger.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=[accuracy_score])  # expect: NEW-python-library-on-symbolic-tensor
words = np.random.randint(1, 50, size=(32, 12))
tags = np.random.randint(0, len(TAGS), size=(32, 12))
tagger.fit(words, tags, epochs=1, verbose=0)
