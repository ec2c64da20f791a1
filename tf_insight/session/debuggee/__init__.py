"""Code that runs in the *user's* interpreter (standard library only): the environment probe,
the bootstrap that starts the script under debugpy, and the logpoint helper."""
