try:
    import tf_keras
except ModuleNotFoundError:
    import tensorflow.keras as tf_keras
