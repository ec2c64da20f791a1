"""A Keras optimizer made in a `tf.function` from the function's learning-rate argument (dreamify's
unused ClassicDreamModel): what fails first, the optimizer's variables or its learning rate?"""
import tensorflow as tf


class Step(tf.Module):
    @tf.function(input_signature=(tf.TensorSpec([None, 3], tf.float32),
                                  tf.TensorSpec([], tf.float32)))
    def __call__(self, x, learning_rate):
        tf.keras.optimizers.Adam(learning_rate=learning_rate)
        return tf.reduce_sum(x)


try:
    print("ran:", Step()(tf.ones((2, 3)), tf.constant(0.1)).numpy())
except ValueError as error:
    print("raised", str(error).strip().splitlines()[-1][:160])
