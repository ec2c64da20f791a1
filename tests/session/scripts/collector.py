"""Reports the garbage collector's state as the script sees it (the bootstrap pauses it)."""

import gc

print("collector", gc.isenabled(), gc.get_threshold())
print("frozen", gc.get_freeze_count())
