# Real-user hazard: a profiling helper gets each layer's output by building a new sub-model (model.input -> layer.output) and predicting with it, for every layer of every profiled input; each new model traces its own predict function.
# After: https://github.com/fastmachinelearning/hls4ml/issues/359 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): profiling 3 inputs over 4 layers (12 sub-models); during the second input 'WARNING: 5 out of the last 5 calls to <function TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed ...> triggered tf.function retracing' (then 6 out of 6)
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8,)),
    tf.keras.layers.Dense(16, activation="relu"),
    tf.keras.layers.Dense(16, activation="relu"),
    tf.keras.layers.Dense(8, activation="relu"),
    tf.keras.layers.Dense(2),
])


def layer_output_ranges(x):
    ranges = {}
    for layer in model.layers:
        probe = tf.keras.Model(model.inputs, layer.output)
        out = probe.predict(x, verbose=0)  # expect: NEW-model-rebuilt-in-loop
        ranges[layer.name] = (float(out.min()), float(out.max()))
    return ranges


for sample in range(3):
    print("input", sample, layer_output_ranges(np.random.rand(4, 8)))
