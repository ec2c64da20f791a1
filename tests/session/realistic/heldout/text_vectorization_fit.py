"""Review classification from raw strings: a `TextVectorization` layer adapted on the training
text, applied in the `tf.data` pipeline, an Embedding + Conv1D model trained with `fit`, then an
end-to-end model that takes raw strings for `evaluate` and `predict`.

Written after the keras.io example "Text classification from scratch"
(https://keras.io/examples/nlp/text_classification_from_scratch/). Our own code; the IMDB
download is replaced by generated reviews (a few sentiment words among filler words, with the
odd HTML line break the example's standardization strips).
"""

import re
import string

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

MAX_FEATURES = 2000
EMBEDDING_DIM = 32
SEQUENCE_LENGTH = 60
BATCH_SIZE = 32

POSITIVE = ["great", "wonderful", "loved", "brilliant", "moving", "superb"]
NEGATIVE = ["awful", "boring", "hated", "dull", "terrible", "waste"]
FILLER = ["the", "film", "plot", "actor", "scene", "was", "and", "a", "it", "story", "music"]


def make_reviews(n, rng):
    texts, labels = [], []
    for _ in range(n):
        label = int(rng.integers(0, 2))
        words = list(rng.choice(FILLER, size=rng.integers(15, 40)))
        for _ in range(3):
            words.insert(int(rng.integers(0, len(words))), rng.choice(POSITIVE if label else NEGATIVE))
        text = " ".join(words).capitalize() + "."
        if rng.random() < 0.3:
            text = text.replace(" and ", " and<br /><br />", 1)
        texts.append(text)
        labels.append(label)
    return np.array(texts), np.array(labels, dtype="int32")


rng = np.random.default_rng(11)
train_text, train_labels = make_reviews(600, rng)
val_text, val_labels = make_reviews(160, rng)
test_text, test_labels = make_reviews(160, rng)

raw_train_ds = tf.data.Dataset.from_tensor_slices((train_text, train_labels)).batch(BATCH_SIZE)
raw_val_ds = tf.data.Dataset.from_tensor_slices((val_text, val_labels)).batch(BATCH_SIZE)
raw_test_ds = tf.data.Dataset.from_tensor_slices((test_text, test_labels)).batch(BATCH_SIZE)


def custom_standardization(input_data):
    lowercase = tf.strings.lower(input_data)
    stripped_html = tf.strings.regex_replace(lowercase, "<br />", " ")
    return tf.strings.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


vectorize_layer = layers.TextVectorization(
    standardize=custom_standardization,
    max_tokens=MAX_FEATURES,
    output_mode="int",
    output_sequence_length=SEQUENCE_LENGTH,
)
text_ds = raw_train_ds.map(lambda x, y: x)
vectorize_layer.adapt(text_ds)
print("vocabulary size:", vectorize_layer.vocabulary_size())


def vectorize_text(text, label):
    text = tf.expand_dims(text, -1)
    return vectorize_layer(text), label


train_ds = raw_train_ds.map(vectorize_text).cache().prefetch(buffer_size=10)
val_ds = raw_val_ds.map(vectorize_text).cache().prefetch(buffer_size=10)

inputs = keras.Input(shape=(None,), dtype="int64")
x = layers.Embedding(MAX_FEATURES, EMBEDDING_DIM)(inputs)
x = layers.Dropout(0.3)(x)
x = layers.Conv1D(32, 5, padding="valid", activation="relu", strides=2)(x)
x = layers.GlobalMaxPooling1D()(x)
x = layers.Dense(32, activation="relu")(x)
x = layers.Dropout(0.3)(x)
predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)

model = keras.Model(inputs, predictions, name="text_cnn")
model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(train_ds, validation_data=val_ds, epochs=4, verbose=2)

# An end-to-end model: raw strings in, probabilities out.
string_input = keras.Input(shape=(1,), dtype="string")
indices = vectorize_layer(string_input)
end_to_end_model = keras.Model(string_input, model(indices), name="end_to_end")
end_to_end_model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
loss, accuracy = end_to_end_model.evaluate(raw_test_ds.map(lambda x, y: (tf.expand_dims(x, -1), y)), verbose=0)
print(f"end-to-end test accuracy: {accuracy:.3f}")

samples = tf.constant([["A superb and moving story."], ["Dull, boring, a waste of an actor."]])
print("scores:", end_to_end_model.predict(samples, verbose=0).ravel().round(3))
