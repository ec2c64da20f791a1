import tensorflow as tf
from tensorflow import keras


def my_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))  # @reduce


model = keras.Sequential([keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=my_loss)  # @compile
model.fit(tf.ones((8, 4)), tf.ones((8, 1)), sample_weight=tf.range(8.0))  # weights reach the loss
