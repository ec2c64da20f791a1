# Real-user hazard: a custom loss weights each sample with the output of a second, already trained model, obtained by calling that model's predict on the batch; predict is a whole eager inference loop over NumPy data, and inside the traced train step the batch is a symbolic tensor.
# After: https://github.com/tensorflow/tensorflow/issues/37405 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): weigher.predict on a NumPy batch returns four weights; fit raises RuntimeError: Method requires being in cross-replica context, use get_replica_context().merge_call() (predict called inside the traced train step, from the loss)
import keras
import numpy as np
from keras import ops

rng = np.random.RandomState(5)
x = rng.normal(size=(64, 1)).astype("float32")
y = (x > 0).astype("float32")

weigher = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1, activation="sigmoid")])
print("weights on a NumPy batch:", weigher.predict(x[:4], verbose=0).ravel())


def reweighted_loss(y_true, y_pred):
    w = weigher.predict(y_true, verbose=0)  # expect: NEW-predict-in-graph
    ratio = w / (1.0 - w)
    return ops.mean(ratio * ops.square(y_true - y_pred))


model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=reweighted_loss)
model.fit(x, y, batch_size=16, epochs=1, verbose=0)
print("fit done")
