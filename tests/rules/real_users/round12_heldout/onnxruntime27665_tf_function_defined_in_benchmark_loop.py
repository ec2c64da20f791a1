# Real-user hazard: a benchmark defines its @tf.function forward pass inside the innermost loop over input sizes, so every iteration makes a new function object with an empty trace cache and traces the model again, even for sizes it has already traced.
# After: https://github.com/microsoft/onnxruntime/pull/27665 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 3 repeats over 2 input sizes trace the forward pass 6 times (once per new function object, where 2 traces would do), with the warnings '5 out of the last 9 calls to <function forward ...> triggered tf.function retracing' and '6 out of the last 11'
import keras
import tensorflow as tf

encoder = keras.Sequential([
    keras.Input(shape=(None,), dtype="int32"),
    keras.layers.Embedding(100, 8),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(2),
])

traces = 0
for _repeat in range(3):
    for batch_size, length in ((1, 8), (4, 16)):
        @tf.function
        def forward(token_ids):
            return encoder(token_ids, training=False)

        token_ids = tf.random.uniform((batch_size, length), maxval=100, dtype=tf.int32)
        forward(token_ids)  # expect: TFI014
        forward(token_ids)
        traces += forward.experimental_get_tracing_count()
print("forward passes traced", traces, "times for 2 input sizes")
