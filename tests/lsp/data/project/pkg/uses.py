import tf_keras as keras

from pkg.helpers import recompute


class Block(keras.layers.Layer):
    @recompute  # @cross-decorator
    def call(self, inputs, **kwargs):
        return inputs
