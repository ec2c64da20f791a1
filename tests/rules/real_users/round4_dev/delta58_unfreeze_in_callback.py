# Real-user hazard: a callback unfreezes the backbone during fit by setting layer.trainable = True; the train function was already traced with the frozen variable list, so the backbone never trains.
# After: https://github.com/nasa/delta/issues/58 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after the callback, model.trainable_weights lists 4 variables but the backbone kernel does not change in epochs 2-5 of the same fit; with fit stopped, compile called again and fit resumed, it does change
import numpy as np
import tensorflow as tf

backbone = tf.keras.layers.Dense(8, activation="relu", name="backbone")
model = tf.keras.Sequential([tf.keras.Input((4,)), backbone, tf.keras.layers.Dense(1)])
backbone.trainable = False
model.compile(optimizer="sgd", loss="mse")


class UnfreezeBackbone(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if epoch == 1:
            backbone.trainable = True  # expect: NEW-trainable-changed-during-fit
            self.kernel_at_unfreeze = backbone.kernel.numpy().copy()


unfreeze = UnfreezeBackbone()
model.fit(np.random.rand(64, 4), np.random.rand(64, 1), epochs=6, verbose=0, callbacks=[unfreeze])
print("trainable weights after fit:", len(model.trainable_weights))
print("backbone kernel changed in epochs 2-5:", not np.allclose(unfreeze.kernel_at_unfreeze, backbone.kernel.numpy()))
