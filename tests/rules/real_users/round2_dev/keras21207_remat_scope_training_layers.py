# Real-user hazard: layers built inside keras.RematScope(mode="full") to save memory, one of which (Dense) takes `training`; the model is then trained with fit.
# After: https://github.com/keras-team/keras/issues/21207 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the model builds, fit raises ValueError: Exception encountered when calling Dense.call(): The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled (training=True)
import keras
import numpy as np

inputs = keras.Input(shape=(16, 16, 3))
with keras.RematScope(mode="full"):
    conv = keras.layers.Conv2D(8, 3, padding="same", activation="relu")
    pool = keras.layers.GlobalAveragePooling2D()
    head = keras.layers.Dense(4, activation="softmax")  # expect: TFI001
outputs = head(pool(conv(inputs)))
model = keras.Model(inputs, outputs)
print("model built:", model.output_shape)
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(np.random.rand(16, 16, 16, 3), np.random.randint(0, 4, 16), epochs=1, verbose=0)
print("trained")
