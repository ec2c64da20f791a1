"""Sentiment-style classification with one Transformer block, trained with `fit`.

Written after the keras.io example "Text classification with Transformer"
(https://keras.io/examples/nlp/text_classification_with_transformer/). Our own code; the IMDB
download is replaced by synthetic token sequences whose label depends on which of two groups
of "sentiment" tokens is more frequent.
"""

import keras
import numpy as np
from keras import layers, ops

VOCAB_SIZE = 2000
MAXLEN = 40
EMBED_DIM = 32
NUM_HEADS = 2
FF_DIM = 32


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=False):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output, training=training)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output, training=training)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = ops.shape(x)[-1]
        positions = ops.arange(start=0, stop=maxlen, step=1)
        return self.token_emb(x) + self.pos_emb(positions)


def make_reviews(n, rng):
    """Token ids in [10, VOCAB_SIZE); ids 2..5 are 'positive', 6..9 'negative'."""
    x = rng.integers(10, VOCAB_SIZE, size=(n, MAXLEN))
    y = rng.integers(0, 2, size=(n,))
    for i in range(n):
        group = (2, 6) if y[i] else (6, 10)
        spots = rng.choice(MAXLEN, size=6, replace=False)
        x[i, spots] = rng.integers(*group, size=6)
    return x.astype("int32"), y.astype("int32")


rng = np.random.default_rng(42)
x_train, y_train = make_reviews(500, rng)
x_val, y_val = make_reviews(128, rng)
print(len(x_train), "Training sequences")
print(len(x_val), "Validation sequences")

inputs = layers.Input(shape=(MAXLEN,))
embedding_layer = TokenAndPositionEmbedding(MAXLEN, VOCAB_SIZE, EMBED_DIM)
x = embedding_layer(inputs)
transformer_block = TransformerBlock(EMBED_DIM, NUM_HEADS, FF_DIM)
x = transformer_block(x)
x = layers.GlobalAveragePooling1D()(x)
x = layers.Dropout(0.1)(x)
x = layers.Dense(20, activation="relu")(x)
x = layers.Dropout(0.1)(x)
outputs = layers.Dense(2, activation="softmax")(x)

model = keras.Model(inputs=inputs, outputs=outputs)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
history = model.fit(
    x_train, y_train, batch_size=32, epochs=3, validation_data=(x_val, y_val), verbose=2
)

loss, accuracy = model.evaluate(x_val, y_val, verbose=0)
print(f"validation accuracy: {accuracy:.3f}")
