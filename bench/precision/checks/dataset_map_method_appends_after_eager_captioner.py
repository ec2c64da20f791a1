"""Analogue of imdex 0.2.0, Indexer.py:52 (TFI006): an indexer whose load_folder does ds.map(self._process) (result
discarded); _process builds an image tensor, passes it to an eager-style captioner (iterates
its argument as a batch and calls .numpy() on a sampled token id), then appends the caption and
the path to lists on self. Does the append ever run, and with what?"""
import tensorflow as tf


class Captioner:
    def captionize(self, images):  # written for a batch of eager images
        captions = []
        for img in images:
            token = tf.random.categorical(tf.reshape(img, (1, -1)), 1)[0][0].numpy()
            captions.append(f"word{token}")
        return captions


class Indexer:
    def __init__(self):
        self.cap = Captioner()
        self.captions, self.refs = [], []

    def _process(self, path):
        img = tf.fill((4, 4, 3), tf.cast(tf.strings.length(path), tf.float32))
        caption = self.cap.captionize(img)
        self.captions.append(caption[0])
        self.refs.append(path)

    def load_folder(self, paths):
        ds = tf.data.Dataset.from_tensor_slices(paths)
        ds.map(self._process, num_parallel_calls=tf.data.AUTOTUNE)


idx = Indexer()
try:
    idx.load_folder(["a.jpg", "bb.jpg", "ccc.jpg"])
    print("map traced; refs appended:", idx.refs)
except Exception as e:
    lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
    print("map() fails while tracing:", type(e).__name__, "|", lines[-1][:150])
    print("refs appended before the failure:", idx.refs)
