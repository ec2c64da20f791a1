"""Leaves through os._exit: no cleanup, no atexit handlers."""

import os

print("leaving early", flush=True)
os._exit(3)  # @exit
