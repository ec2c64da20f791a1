"""Text rendering of a trace: the steps as a chain with annotations, then the verdict."""

from __future__ import annotations

import os
from typing import Any

from tf_insight.session.model import Step, TraceResult


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


def render_text(result: TraceResult) -> str:
    """The whole result, for a terminal."""
    out = [
        f"tf-insight trace {result.script}: {result.status}, exit code {result.exit_code}, "
        f"{len(result.steps)} steps in {result.duration_s:.1f} s"
    ]
    out.extend(f"  ! {problem}" for problem in result.problems)
    if result.steps:
        out.append("\nSteps")
        out.extend(render_step(step) for step in result.steps)
    if result.exception:
        out.append(
            f"\nException  {result.exception.type}: {_core_message(result.exception.message)}"
        )
        if result.exception.stack:
            out.append(f"  unfiltered stack: {len(result.exception.stack)} frames, innermost:")
            out.extend(f"    {_short_path(f)}" for f in result.exception.stack[-4:])
    if result.verdict:
        verdict = result.verdict
        link = " · ".join(x for x in (verdict.rule, verdict.id) if x)
        out.append(f"\nVerdict  {verdict.title}" + (f"  [{link}]" if link else ""))
        out.append(f"  {verdict.summary}")
        if verdict.chain:
            out.append(f"  chain: steps {', '.join(str(i) for i in verdict.chain)}")
        if verdict.fix:
            out.append("  Fix:")
            out.extend(f"    {line}" for line in verdict.fix.splitlines())
    if result.retraces:
        out.append("\nRetraces")
        for retrace in result.retraces:
            out.append(
                f"  {retrace.function} ({_short_path(retrace.path)}:{retrace.line}) "
                f"traced {retrace.count}×"
            )
            out.extend(f"    {reason}" for reason in retrace.reasons[:5])
            if len(retrace.reasons) > 5:
                out.append(f"    … {len(retrace.reasons) - 5} more")
    if result.side_effects:
        out.append("\nTrace-time side effects")
        out.extend(f"  {effect.summary}" for effect in result.side_effects)
    if result.probe_hits:
        hits = ", ".join(f"{probe} {count}" for probe, count in sorted(result.probe_hits.items()))
        out.append(f"\nProbe hits: {hits}")
    return "\n".join(out) + "\n"


def _link(link: dict[str, Any]) -> str:
    kind = str(link.get("kind"))
    text = str(link.get("repr", ""))
    if kind == "bound method":
        return text.split(" of ")[0].lstrip("<") if " of " in text else text
    if kind in ("function", "AutoGraph-converted function", "tf.recompute_grad wrapper"):
        return f"{kind} {text.split(' at 0x')[0].lstrip('<').removeprefix('function ')}"
    return kind


def _arg(arg: dict[str, Any]) -> str:
    if "shape" in arg:
        return f"{arg['type']}{arg['shape']} {arg['dtype']}"
    if "value" in arg:
        return repr(arg["value"])
    return str(arg.get("type"))


def _where(frame: dict[str, Any]) -> str:
    return f"{_short_path(str(frame['path']))}:{frame['line']} in {frame['function']}"


def _short_path(path: str) -> str:
    """Library paths from their package, the user's relative to the working directory."""
    marker = f"site-packages{os.sep}"
    if marker in path:
        return path.split(marker, 1)[1]
    here = os.getcwd() + os.sep
    return path[len(here) :] if path.startswith(here) else path


def _core_message(text: str) -> str:
    """The first line, and the real message under Keras's "Exception encountered…" line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("Exception encountered when calling"):
        return f"{lines[0]}\n  {lines[1]}"
    return lines[0] if lines else ""
