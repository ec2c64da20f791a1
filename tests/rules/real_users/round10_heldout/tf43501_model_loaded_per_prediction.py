# Real-user hazard: a service function loads the saved model from disk and predicts every time a new reading arrives; each loaded model traces its own predict function, so every call pays a load and a trace (and TensorFlow warns about retracing).
# After: https://github.com/tensorflow/tensorflow/issues/43501 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the 12 readings are scored, but every call loads a new model whose predict function is traced anew: TensorFlow warns '5 out of the last 5 calls to <function TensorFlowTrainer.make_predict_function.<locals>.one_step_on_data_distributed ...> triggered tf.function retracing' at the 5th reading and '6 out of the last 6' at the 6th
import os
import tempfile

import keras
import numpy as np

path = os.path.join(tempfile.mkdtemp(), "similarity.keras")
inputs = keras.Input((8,))
keras.Model(inputs, keras.layers.Dense(1, activation="sigmoid")(inputs)).save(path)


def score_reading(reading):
    model = keras.models.load_model(path)  # expect: TFI027
    return model.predict(reading[None, :], verbose=0)[0, 0]


readings = np.random.RandomState(0).normal(size=(12, 8)).astype("float32")
scores = [score_reading(reading) for reading in readings]
print("scored", len(scores), "readings")
