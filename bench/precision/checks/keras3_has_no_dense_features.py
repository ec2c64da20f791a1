"""On TF 2.21 with Keras 3, `tf.keras.layers` has no `DenseFeatures` (the feature-column layer
of Keras 2): importing it raises ImportError."""
import tensorflow as tf

print(tf.__version__, tf.keras.__version__ if hasattr(tf.keras, "__version__") else "")
print("tf.keras.layers has DenseFeatures:", hasattr(tf.keras.layers, "DenseFeatures"))
try:
    from tensorflow.keras.layers import DenseFeatures  # noqa: F401
    print("import ok")
except ImportError as error:
    print("ImportError:", error)
