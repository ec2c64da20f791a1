# settings: keras=2
import tensorflow as tf

from pkg.blocks import Block
from pkg.decorators import recompute_alias, recompute_grad, traced
from pkg.helpers import clip_gradient, normalize
from pkg.losses import spread_loss


class LayerNormalization(Block):
    @recompute_grad  # expect: TFI001
    def call(self, inputs, **kwargs):
        return inputs


class Embedding(Block):
    @recompute_alias  # expect: TFI001
    def call(self, inputs, **kwargs):
        return inputs


@traced
def compiled(x):
    return x + 1


@tf.function
def step(x):
    return clip_gradient(normalize(x), scale=2.0)  # expect: TFI001


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=spread_loss)
