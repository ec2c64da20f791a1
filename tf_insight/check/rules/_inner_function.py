"""The safe-fix shared by TFI001 and TFI002: move a gradient wrapper from a Layer method onto
an inner function of the tensors only, called positionally.

    @tf.recompute_grad                      def call(self, inputs, training=None):
    def call(self, inputs, training=None):     @tf.recompute_grad
        return self.dense(inputs)      →       def forward(inputs):
                                                   return self.dense(inputs)
                                               return forward(inputs)

Keyword arguments (`training`, `mask`, `**kwargs`) and `self` stay visible to the inner function
as closure variables, so the wrapper only ever sees positional tensors.
"""

from __future__ import annotations

import ast

from tf_insight.check.context import ModuleContext
from tf_insight.check.index import FunctionInfo
from tf_insight.findings import Edit, Fix, Span

INNER_NAME = "forward"


def wrap_inner_function(module: ModuleContext, method: FunctionInfo,
                        decorator: ast.expr) -> Fix | None:
    node = method.node
    if not isinstance(node, ast.FunctionDef) or not node.body:
        return None
    positional = [a.arg for a in node.args.posonlyargs + node.args.args][1:]  # without self
    tensors = positional[: len(positional) - len(node.args.defaults)] or positional[:1]
    if not tensors or INNER_NAME in method.local_names:
        return None
    source = module.source
    first, last = node.body[0], node.body[-1]
    docstring = (
        isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    body = node.body[1:] if docstring and len(node.body) > 1 else node.body
    start_line = body[0].lineno
    end_line = last.end_lineno or last.lineno
    if any(
        isinstance(inner, ast.Constant) and isinstance(inner.value, str)
        and inner.lineno != inner.end_lineno
        for statement in body for inner in ast.walk(statement)
    ):
        return None  # re-indenting would change a multi-line string's value
    indent = source.line_indent(start_line)
    step = indent[len(source.line_indent(node.lineno)):] or "    "
    wrapper = source.segment(decorator)
    body_lines = [
        (step + text) if text.strip() else text
        for text in source.lines[start_line - 1 : end_line]
    ]
    new_body = (
        f"{indent}@{wrapper}\n"
        f"{indent}def {INNER_NAME}({', '.join(tensors)}):\n"
        + "\n".join(body_lines) + "\n"
        + f"{indent}return {INNER_NAME}({', '.join(tensors)})"
    )
    last_column = len(source.lines[end_line - 1])
    return Fix(
        description=f"Apply `{wrapper}` to an inner function of the tensors, called positionally",
        edits=(
            Edit(Span(decorator.lineno, 0, (decorator.end_lineno or decorator.lineno) + 1, 0), ""),
            Edit(Span(start_line, 0, end_line, last_column), new_body),
        ),
    )
