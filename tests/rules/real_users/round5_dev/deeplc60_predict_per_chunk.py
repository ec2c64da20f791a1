# Real-user hazard: retention times are predicted chunk by chunk, calling model.predict on every chunk of encoded peptides; each call sets up a whole prediction run, so the loop is slow and memory keeps growing.
# After: https://github.com/CompOmics/DeepLC/pull/60 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 chunks: ~92 ms per model.predict call against ~3 ms for model(x, training=False); max RSS 580 MB after 100 chunks, 581 MB after 300 (with 1200 chunks it stays at 615 MB from the 400th on: the memory growth of the thread is not seen on 2.21, the slowness is)
import resource
import time

import numpy as np
import tensorflow as tf

AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"

retention_model = tf.keras.Sequential([
    tf.keras.Input((30, len(AMINO_ACIDS))),
    tf.keras.layers.Conv1D(16, 3, activation="relu"),
    tf.keras.layers.GlobalMaxPooling1D(),
    tf.keras.layers.Dense(1),
])


def encode(peptide):
    onehot = np.zeros((30, len(AMINO_ACIDS)), "float32")
    for position, residue in enumerate(peptide[:30]):
        onehot[position, AMINO_ACIDS.index(residue)] = 1.0
    return onehot


rng = np.random.default_rng(1)
peptides = ["".join(rng.choice(list(AMINO_ACIDS), size=rng.integers(7, 30))) for _ in range(2400)]
encoded = np.stack([encode(p) for p in peptides])

start = time.time()
predicted = []
for index, chunk_start in enumerate(range(0, len(encoded), 8)):
    predicted.append(retention_model.predict(encoded[chunk_start:chunk_start + 8], verbose=0))  # expect: TFI023
    if index % 100 == 99:
        print(index + 1, "chunks, max RSS MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
per_chunk = (time.time() - start) / (len(encoded) // 8)
start = time.time()
for chunk_start in range(0, len(encoded), 8):
    retention_model(encoded[chunk_start:chunk_start + 8], training=False)
print(f"predict {per_chunk * 1000:.1f} ms per chunk, model(x) {(time.time() - start) / (len(encoded) // 8) * 1000:.1f} ms")
