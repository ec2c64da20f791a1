"""Leaves through sys.exit with a code."""

import sys

print("calling sys.exit(4)")
sys.exit(4)  # @exit
