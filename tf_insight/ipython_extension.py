"""`%load_ext tf_insight`: TensorFlow/Keras errors explained right under the failing cell.

After a cell raises, the traceback IPython showed is explained exactly as a paste of it would
be. For a recognised TF/Keras error the cell gets a short note under the traceback: what it is,
the line of the cell that did it, the fix, and how to see the full explanation; other
exceptions are left alone. The note is display data with Markdown and plain-text forms, so it
shows in Jupyter, JupyterLab, VS Code notebooks and terminal IPython alike.

    %load_ext tf_insight
    %tf_insight explain     the full explanation of the last explained error
    %tf_insight off | on    stop / resume explaining (also: %unload_ext tf_insight)
    %tf_insight status

An adapter like the language server: the core (`tf_insight.explain`) knows nothing of IPython.
It never imports TensorFlow and never lets a failure of its own reach the user's cell.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

from tf_insight.explain import explain
from tf_insight.explain.explanation import Explanation
from tf_insight.explain.render import render_markdown, render_text

USAGE = "usage: %tf_insight [explain | on | off | status]"


class CellErrorExplainer:
    """Explains the error of each failed cell; registered on IPython's `post_run_cell`."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.enabled = True
        self.last: Explanation | None = None

    def after_cell(self, result: Any) -> None:
        error = getattr(result, "error_in_exec", None)
        if not self.enabled or error is None:
            return
        try:
            explanation = explain(self._shown_traceback(error))
        except Exception as failure:  # the user's session matters more than our note
            print(f"tf-insight: could not explain this error: {failure!r}", file=sys.stderr)
            return
        if explanation.recognised:
            self.last = explanation
            self._display(note_markdown(explanation), note_text(explanation))

    def magic(self, line: str) -> None:
        command = line.strip() or "status"
        if command == "explain":
            if self.last is None:
                print("tf-insight: no TensorFlow/Keras error explained in this session yet")
            else:
                self._display(render_markdown(self.last), render_text(self.last))
        elif command in ("on", "off"):
            self.enabled = command == "on"
            print(f"tf-insight: explaining TensorFlow/Keras errors is {command}")
        elif command == "status":
            print(f"tf-insight: explaining TensorFlow/Keras errors is "
                  f"{'on' if self.enabled else 'off'}")
        else:
            print(USAGE)

    def _shown_traceback(self, error: BaseException) -> str:
        """The traceback as IPython formats it (`Cell In[3], line 5`), else Python's form."""
        try:
            lines = self.shell.InteractiveTB.structured_traceback(
                type(error), error, error.__traceback__)
            return "\n".join(lines)
        except Exception:  # an IPython whose formatter differs: the cell file paths still tell
            return "".join(traceback.format_exception(type(error), error, error.__traceback__))

    @staticmethod
    def _display(markdown: str, text: str) -> None:
        from IPython.display import display

        display({"text/markdown": markdown, "text/plain": text}, raw=True)  # type: ignore[no-untyped-call]


def _where(explanation: Explanation) -> str | None:
    frame = explanation.user_frame
    if frame is None:
        return None
    where = f"cell {frame.cell}" if frame.cell else frame.path
    return f"{where}, line {frame.line}"


def note_markdown(explanation: Explanation) -> str:
    tags = " · ".join(f"`{tag}`" for tag in (explanation.id, explanation.rule) if tag)
    out = [f"**TF Insight: {explanation.title}** {tags}", ""]
    where = _where(explanation)
    if where:
        code = explanation.user_frame.code if explanation.user_frame else None
        out += [f"**Your line:** {where}" + (f": `{code}`" if code else ""), ""]
    out += [f"**Fix.** {explanation.fix}", ""]
    more = [f"how sure: {explanation.confidence}", "full explanation: `%tf_insight explain`"]
    more += [f"[docs]({link})" for link in explanation.links[:1]]
    out.append("*" + " · ".join(more) + "*")
    return "\n".join(out)


def note_text(explanation: Explanation) -> str:
    tags = ", ".join(tag for tag in (explanation.id, explanation.rule) if tag)
    out = [f"TF Insight: {explanation.title} [{tags}]"]
    where = _where(explanation)
    if where:
        code = explanation.user_frame.code if explanation.user_frame else None
        out.append(f"Your line: {where}" + (f": {code}" if code else ""))
    out += ["Fix: " + explanation.fix.strip(),
            f"How sure: {explanation.confidence}. Full explanation: %tf_insight explain"]
    return "\n".join(out)


_EXPLAINERS: dict[int, CellErrorExplainer] = {}  # one per shell (a process may hold several)


def load(shell: Any) -> None:
    if id(shell) in _EXPLAINERS:
        return
    explainer = CellErrorExplainer(shell)
    _EXPLAINERS[id(shell)] = explainer
    shell.events.register("post_run_cell", explainer.after_cell)
    shell.register_magic_function(explainer.magic, "line", "tf_insight")


def unload(shell: Any) -> None:
    explainer = _EXPLAINERS.pop(id(shell), None)
    if explainer is not None:
        shell.events.unregister("post_run_cell", explainer.after_cell)
        shell.magics_manager.magics["line"].pop("tf_insight", None)
