# Real-user hazard: a custom loss sums the squared error over the batch and divides by y_true.shape[0]; with a dataset whose size is not a multiple of the batch size, Keras traces the train step again with the batch dimension unknown, shape[0] is None, and the division fails.
# After: https://github.com/keras-team/keras/issues/19732 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the loss on a concrete batch of 10 gives shape (2,), and fit with batch_size=25 (four full batches of 100 rows) runs; fit with batch_size=30 raises ValueError: None values not supported. (at the division by y_true.shape[0]: the last, partial batch makes Keras retrace the step with the batch dimension unknown)
import keras
import numpy as np
from keras import ops


def per_sample_squared_error(y_true, y_pred):
    total = ops.sum(ops.square(y_true - y_pred), axis=0)
    return total / y_true.shape[0]  # expect: TFI026


rng = np.random.RandomState(3)
x = rng.uniform(size=(100, 6)).astype("float32")
y = rng.uniform(size=(100, 2)).astype("float32")

model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
print("on a concrete batch:", per_sample_squared_error(y[:10], model(x[:10])).shape)
model.compile(optimizer="adam", loss=per_sample_squared_error)
model.fit(x, y, batch_size=25, epochs=1, verbose=0)
print("batch_size=25 (4 full batches): fit done")
model.fit(x, y, batch_size=30, epochs=1, verbose=0)
print("batch_size=30: fit done")
