"""Analogue of scaaml 3.0.5, io/dataset.py:552 (TFI003): a map function builds y from a closed-over dict `outputs`, and builds
extra heads from a separate `extra` list; after ds.map(...) the extra heads' info is added to
`outputs` (returned to the caller as the description of y). Do y's keys and `outputs` agree?"""
import tensorflow as tf

outputs = {"k_0": {"ap": "k", "byte": 0, "max_val": 4}}
extra = [{"info": {"full_name": "parity", "max_val": 2}, "func": lambda rec: rec["k"][0] % 2}]


def process(rec):
    y = {}
    for name, data in outputs.items():  # read at trace time
        y[name] = tf.one_hot(rec[data["ap"]][data["byte"]], data["max_val"])
    for ap in extra:
        y[ap["info"]["full_name"]] = tf.one_hot(ap["func"](rec), ap["info"]["max_val"])
    return y


ds = tf.data.Dataset.from_tensor_slices({"k": [[1], [2], [3]]}).map(process)
for ap in extra:  # mutation after the map was traced
    outputs[ap["info"]["full_name"]] = ap["info"]
y = next(iter(ds))
print("y keys:", sorted(y), "| outputs keys:", sorted(outputs), "| agree:", sorted(y) == sorted(outputs))
