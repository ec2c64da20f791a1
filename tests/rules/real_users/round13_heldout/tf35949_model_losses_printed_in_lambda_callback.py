# Real-user hazard: a LambdaCallback prints model.losses at the start of every batch to watch an activity regulariser; the regularisation losses are tensors of the train step that fit traces, so from the callback they are symbolic tensors with no value and tf.print fails on them.
# After: https://github.com/tensorflow/tensorflow/issues/35949 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): batch 0 prints 'losses: []' (nothing traced yet); at batch 1 tf.print raises AttributeError: 'SymbolicTensor' object has no attribute '_datatype_enum' (model.losses holds the traced step's symbolic regularisation losses; tf-keras raises the same error)
import keras
import numpy as np
import tensorflow as tf

inputs = keras.Input(shape=(1,))
hidden = keras.layers.Dense(4, activity_regularizer=keras.regularizers.L1(0.01))(inputs)
model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
model.compile(optimizer="sgd", loss="mse")

show_penalties = keras.callbacks.LambdaCallback(
    on_train_batch_begin=lambda batch, logs: tf.print("batch", batch, "losses:", model.losses)  # expect: TFI031
)
model.fit(np.ones((8, 1)), np.ones((8, 1)), batch_size=4, epochs=1, verbose=0, callbacks=[show_penalties])
print("fit finished")
