"""Starts a child process (in its own session, so it escapes the process group) and hangs."""

import subprocess
import sys
import time

child = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
)
print("child", child.pid, flush=True)
time.sleep(600)  # @hang
