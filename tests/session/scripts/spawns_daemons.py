"""Starts a child in a new session and a double-forked daemon (both would outlive a plain
process-group kill), prints their pids, then exits, hangs, or kills its own process group
(`os.killpg(0, SIGKILL)`) as argv[1] says."""

import os
import signal
import subprocess
import sys
import time

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                         start_new_session=True)
read, write = os.pipe()
if os.fork() == 0:
    if os.fork() == 0:  # the daemon: its parent exits at once, it moves to a new session
        os.setsid()
        os.write(write, str(os.getpid()).encode())
        time.sleep(600)
    os._exit(0)
daemon = int(os.read(read, 32))
print("child", child.pid, "daemon", daemon, flush=True)
if sys.argv[1:] == ["hang"]:
    time.sleep(600)  # @hang
elif sys.argv[1:] == ["killpg"]:
    os.killpg(0, signal.SIGKILL)
