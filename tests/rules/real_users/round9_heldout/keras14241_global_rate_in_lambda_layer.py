# Real-user hazard: a Lambda layer divides by a module-level rate that the training loop decays before every train_on_batch; Keras traces the train function once, so the rate is frozen at its first value in training while eager calls of the model see the new one.
# After: https://github.com/keras-team/keras/issues/14241 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with the learning rate at 0 (weights fixed), train_on_batch reports loss 36.00 at every step (the rate frozen at 0.5, its value when the train function was traced) while eager calls of the model after each step give 36.00, 144.00, 576.00, 2304.00, 9216.00 as the rate halves
import keras
import numpy as np

rate = 1.0

inputs = keras.Input((3,))
hidden = keras.layers.Dense(2, kernel_initializer="ones", use_bias=False)(inputs)
scaled = keras.layers.Lambda(lambda h: h / rate)(hidden)  # expect: TFI003
model = keras.Model(inputs, scaled)
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss="mse")

features = np.ones((4, 3), dtype="float32")
target = np.zeros((4, 2), dtype="float32")
for _ in range(5):
    rate = rate / 2.0
    loss = model.train_on_batch(features, target)
    eager_loss = float(np.mean(np.square(model(features).numpy() - target)))
    print(f"rate {rate}: train_on_batch loss {float(loss):.2f}, eager loss {eager_loss:.2f}")
