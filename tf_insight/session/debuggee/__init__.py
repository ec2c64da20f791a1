"""Code that runs in the *user's* interpreter (standard library only): the environment probe,
the supervisor, the bootstrap that starts the script under debugpy, and the probe session
(`probe.py`: annotations, hooks, the tracer switch, the pipe to the runner, the counters).
The bootstrap loads this folder by path as the package `_tf_insight_debuggee` (the user's
interpreter does not have tf_insight). `messages.py` is the schema of what crosses between the
debuggee and the runner, checked on read by `schema.py`."""
