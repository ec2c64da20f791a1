# Real-user hazard: a DenseNet block builds its conv units inside call(), so every trace creates new layers and variables.
# After: https://github.com/calmiLovesAI/Basic_CNNs_TensorFlow2/issues/13 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit runs but the model has 2 trainable variables (head only; the block's convs are never trained); with tf-keras fit raises 'tf.function only supports singleton tf.Variables created on the first call'
import numpy as np
import tensorflow as tf


class DenseUnit(tf.keras.layers.Layer):
    def __init__(self, growth, **kwargs):
        super().__init__(**kwargs)
        self.conv = tf.keras.layers.Conv2D(growth, 3, padding="same")

    def call(self, inputs, training=None):
        return tf.nn.relu(self.conv(inputs))


class DenseBlock(tf.keras.layers.Layer):
    def __init__(self, num_layers, growth, **kwargs):
        super().__init__(**kwargs)
        self.num_layers = num_layers
        self.growth = growth

    def call(self, inputs, training=None):
        features = [inputs]
        for _ in range(self.num_layers):
            y = DenseUnit(self.growth)(tf.concat(features, axis=-1), training=training)  # expect: NEW-layer-created-in-call
            features.append(y)
        return tf.concat(features, axis=-1)


class DenseNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.block = DenseBlock(num_layers=2, growth=4)
        self.head = tf.keras.Sequential([tf.keras.layers.GlobalAveragePooling2D(), tf.keras.layers.Dense(3)])

    def call(self, inputs, training=None):
        return self.head(self.block(inputs, training=training))


model = DenseNet()
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(np.random.rand(8, 8, 8, 3), np.random.randint(0, 3, 8), epochs=2, verbose=0)
print("trainable variables:", len(model.trainable_variables))
