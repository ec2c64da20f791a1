# Real-user hazard: a vocabulary class wraps a pure-Python tokenizer (it splits text with the re module) and is used to tokenize a text feature in a tf.data map function; Dataset.map hands it a symbolic string tensor, not a Python string, so the tokenizer cannot run.
# After: https://github.com/google/seqio/issues/406 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the vocabulary encodes a Python string ([2, 3, 4, 5, 2, 6]); Dataset.map raises TypeError: expected string or bytes-like object, got 'SymbolicTensor' (at re.findall in WordVocabulary.encode)
import re

import tensorflow as tf


class WordVocabulary:
    def __init__(self, words):
        self.ids = {word: index + 2 for index, word in enumerate(words)}

    def encode(self, text):
        words = re.findall(r"[a-z']+", text)  # expect: NEW-python-library-on-symbolic-tensor
        return [self.ids.get(word, 1) for word in words]


vocabulary = WordVocabulary(["the", "cat", "sat", "on", "mat"])
print("on a Python string:", vocabulary.encode("the cat sat on the mat"))


def tokenize(example):
    return {"targets": tf.constant(vocabulary.encode(example["text"]), tf.int32)}


texts = tf.data.Dataset.from_tensor_slices({"text": ["the cat sat", "on the mat", "the dog ran"]})
for example in texts.map(tokenize):
    print(example["targets"].numpy())
