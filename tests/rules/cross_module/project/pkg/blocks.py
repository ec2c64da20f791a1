import tf_keras as keras


class Block(keras.layers.Layer):
    """A base class in another module: its subclasses are Keras layers too."""
