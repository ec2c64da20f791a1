# Real-user hazard: a tabular model joins the embedding outputs of a functional model with tf.concat on KerasTensors.
# After: https://github.com/DataCanvasIO/DeepTables/issues/93 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: A KerasTensor cannot be used as input to a TensorFlow function
import tensorflow as tf

cat_inputs = [tf.keras.Input(shape=(1,), name=f"cat_{i}") for i in range(3)]
embeddings = [tf.keras.layers.Embedding(10, 4)(inp) for inp in cat_inputs]
stacked = tf.concat(embeddings, axis=1)  # expect: TFI015
fm = tf.keras.layers.Dense(1, activation="sigmoid")(tf.keras.layers.Flatten()(stacked))
model = tf.keras.Model(cat_inputs, fm)
model.compile(optimizer="adam", loss="binary_crossentropy")
