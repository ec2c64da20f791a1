"""Text rendering of a trace: the steps as a chain with annotations, then the verdict."""

from __future__ import annotations

import os

from tf_insight.session.annotation import place_text
from tf_insight.session.debuggee.messages import Frame, Link, UserFrame, ValueSummary
from tf_insight.session.model import Step, TraceResult
from tf_insight.session.wire import VerdictFrame


def render_step(step: Step) -> str:
    """One step: probe, where it ran, the call's identity and arguments (several lines)."""
    mode = {True: "eager", False: "graph mode", None: "mode unknown"}[step.executing_eagerly]
    head = f"[{step.index}] {step.probe}  ({mode}"
    if step.graph and step.graph not in ("eager", "Graph"):
        head += f", FuncGraph {step.graph}"
    head += ")"
    lines = [head]
    if step.layer:
        lines.append(f"    layer    {step.layer['class']} '{step.layer['name']}'")
    if step.call_fn:
        chain = " → ".join(_link(link) for link in step.call_fn.get("chain", []))
        lines.append(f"    call_fn  {chain or step.call_fn.get('repr')}")
    returned = step.detail.get("returned")
    if returned:
        same = " (same object)" if step.detail.get("same_object") else ""
        lines.append(f"    returns  {' → '.join(_link(k) for k in returned['chain'])}{same}")
    if step.args:
        lines.append(f"    args     {', '.join(_arg(a) for a in step.args)}")
    if step.kwargs:
        lines.append(f"    kwargs   {step.kwargs!r}")
    if step.detail.get("raises"):
        lines.append(f"    raises   {step.detail['raises']}")
    lines.append(f"    at       {_where(step.location)}")
    if step.user_frame:
        lines.append(f"    from     {_where(step.user_frame)}")
    return "\n".join(lines)


def render_text(result: TraceResult, verbose: bool = False) -> str:
    """The whole result for a terminal, outcome first: the verdict (or "no hazard seen" and
    why), the steps that led to it, your functions' retraces and trace-time Python. `verbose`
    adds every step, every side effect, the exception's stacks and the probe hits."""
    ending = (f"stopped after {result.stopped_after}, as asked" if result.stopped_after
              else result.status + (f", exit code {result.exit_code}"
                                    if result.exit_code is not None else ""))
    out = [
        f"tf-insight trace {result.script}: {ending}, "
        f"{len(result.steps)} steps in {result.duration_s:.1f} s"
    ]
    out.extend(f"  ! {problem}" for problem in result.problems)
    out.extend(_outcome(result))
    chain = set(result.verdict.chain) if result.verdict else set()
    shown = result.steps if verbose else [s for s in result.steps if s.index in chain]
    if shown:
        out.append("\nSteps" + ("" if verbose else " of the verdict"))
        out.extend(render_step(step) for step in shown)
    if len(shown) < len(result.steps):
        out.append(f"\n{len(result.steps) - len(shown)} more steps: --verbose shows them")
    if result.exception:
        out.append(f"\nException  {result.exception.type}: "
                   f"{_message(result.exception.message, verbose)}")
        if verbose and result.exception.stack:
            out.append(f"  unfiltered stack: {len(result.exception.stack)} frames, innermost:")
            out.extend(f"    {_short_path(f)}" for f in result.exception.stack[-4:])
    if result.retraces:
        out.append("\nRetraces")
        for retrace in result.retraces:
            out.append(
                f"  {retrace.function} "
                + (f"{retrace.context} " if retrace.context else "")
                + f"({place_text(_short_path(retrace.path), retrace.line, retrace.cell)}) "
                f"traced {retrace.count}×" + (f" in {retrace.calls} calls"  # 0: run in a graph
                                              if retrace.calls else "")
                + (f" (+{retrace.variable_traces}: TF traces a first call that creates "
                   "variables twice)" if retrace.variable_traces else "")
            )
            limit = len(retrace.reasons) if verbose else 3
            out.extend(f"    {reason}" for reason in retrace.reasons[:limit])
            if len(retrace.reasons) > limit:
                out.append(f"    … {len(retrace.reasons) - limit} more")
            if retrace.expected:
                out.append(f"    note: {retrace.expected}")
    out.extend(_side_effects(result, verbose))
    if verbose and result.probe_hits:
        hits = ", ".join(f"{probe} {count}" for probe, count in sorted(result.probe_hits.items()))
        out.append(f"\nProbe hits: {hits}")
    return "\n".join(out) + "\n"


def _outcome(result: TraceResult) -> list[str]:
    verdict = result.verdict
    if verdict is None:
        if result.status not in ("completed", "stopped"):
            return []
        own = [e for e in result.side_effects if e.subject.startswith("tf.function ")]
        normal = [r for r in result.retraces if r.expected]
        reasons = ["no exception", "no tf.function of yours retraced on its arguments"
                   + (" but for a short last batch" if normal else "")]
        if own and all(effect.python_runs == 1 for effect in own):
            reasons.append(f"{'each of your' if len(own) > 1 else 'your'} "
                           f"{len(own)} tf.function{'s' if len(own) > 1 else ''} traced once")
        before = f" before the stop after {result.stopped_after}" if result.stopped_after else ""
        return [f"\nNo graph-mode hazard seen{before}: {'; '.join(reasons)}."]
    link = " · ".join(x for x in (verdict.rule, verdict.id) if x)
    out = [f"\nVerdict  {verdict.title}" + (f"  [{link}]" if link else "")]
    if verdict.user_frame:
        out.append(f"  at {_where(verdict.user_frame)}")
        if verdict.user_frame.get("source"):
            out.append(f"      {verdict.user_frame['source']}")
    out.append(f"  {verdict.summary}")
    if verdict.chain:
        out.append(f"  chain: steps {', '.join(str(i) for i in verdict.chain)}")
    if verdict.fix:
        out.append("  Fix:")
        out.extend(f"    {line}" for line in verdict.fix.splitlines())
    if verdict.findings:
        out.append("  Static findings there:")
        out.extend(f"    {place_text(_short_path(str(f['path'])), f['line'], f.get('cell'))}:"
                   f"{f['column']} {f['code']} {short_message(str(f['message']))}"
                   for f in verdict.findings[:3])
    return out


def _side_effects(result: TraceResult, verbose: bool) -> list[str]:
    """Trace-time Python, one line per distinct story: layers told alike are grouped."""
    if not result.side_effects:
        return []
    grouped: dict[str, list[str]] = {}
    for effect in result.side_effects:
        subject, _, story = effect.summary.partition(": Python ran ")
        if verbose or not story:
            grouped.setdefault(effect.summary, [])
        else:
            grouped.setdefault(f"Python ran {story}", []).append(subject)
    lines = ["\nTrace-time side effects"]
    for story, subjects in grouped.items():
        lines.append(f"  {', '.join(subjects)}: {story}" if subjects else f"  {story}")
    return lines


def _link(link: Link) -> str:
    kind, text = link["kind"], link["repr"]
    if kind == "bound method":
        return text.split(" of ")[0].lstrip("<") if " of " in text else text
    if kind in ("function", "AutoGraph-converted function", "tf.recompute_grad wrapper"):
        return f"{kind} {text.split(' at 0x')[0].lstrip('<').removeprefix('function ')}"
    return kind


def _arg(arg: ValueSummary) -> str:
    if "shape" in arg:
        return f"{arg['type']}{arg['shape']} {arg.get('dtype')}"
    if "value" in arg:
        return repr(arg["value"])
    return arg["type"]


def _where(frame: Frame | UserFrame | VerdictFrame) -> str:
    return (f"{place_text(_short_path(frame['path']), frame['line'], frame.get('cell'))} "
            f"in {frame['function']}")


def _short_path(path: str) -> str:
    """Library paths from their package, the user's relative to the working directory."""
    marker = f"site-packages{os.sep}"
    if marker in path:
        return path.split(marker, 1)[1]
    here = os.getcwd() + os.sep
    return path[len(here) :] if path.startswith(here) else path


def _message(text: str, verbose: bool) -> str:
    """The whole message with `verbose`; else its first line, and the real message under
    Keras's "Exception encountered…" line or TF's "in user code:" frames."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    if verbose or len(lines) < 2:
        return "\n  ".join(lines)
    if lines[0].startswith("Exception encountered when calling"):
        # Keras 3 may put its own words between: "… Error encountered:", then the error.
        inner = 3 if lines[1].rstrip().endswith("Error encountered:") and len(lines) > 2 else 2
        return f"{lines[0]}\n  " + "\n  ".join(line.strip() for line in lines[1:inner])
    if lines[0].endswith("in user code:"):
        return f"{lines[0]}\n  " + "\n  ".join(line.strip() for line in lines[1:][-3:])
    return lines[0]


def short_message(message: str, limit: int = 120) -> str:
    """A finding's message up to its first `: ` outside backticks, else cut at a word
    outside backticks before `limit` characters (never inside a code span)."""
    outside, cut = True, None
    for index, char in enumerate(message):
        if char == "`":
            outside = not outside
        elif outside and message.startswith(": ", index):
            return message[:index]
        if outside and char == " " and index <= limit:
            cut = index
    if len(message) <= limit:
        return message
    return message[:cut] + " …" if cut else message
