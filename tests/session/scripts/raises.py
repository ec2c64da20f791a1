"""Raises an uncaught exception unrelated to TensorFlow."""


def load(path):
    raise FileNotFoundError(f"no such dataset: {path}")  # @raise


load("missing.csv")
