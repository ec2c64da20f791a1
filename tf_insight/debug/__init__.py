"""Breakpoints that stop inside graph code: `tf-insight debug`, and the debugpy launch the
editor starts. The debuggee side (`tf_insight/session/debuggee/debug_main.py`, `graph_lines.py`,
`stops.py`) runs in the user's interpreter; this package builds its command line and launch
arguments, and knows nothing of editors."""

from tf_insight.debug.launch import DEBUG_MAIN, command_line, editor_adapter, launch_arguments

__all__ = ["DEBUG_MAIN", "command_line", "editor_adapter", "launch_arguments"]
