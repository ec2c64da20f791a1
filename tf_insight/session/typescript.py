"""The VS Code client's types of the session messages, generated from their schema
(`wire.MESSAGES` and every `TypedDict` inside them).

    python -m tf_insight.session.typescript            # print the generated block
    python -m tf_insight.session.typescript --write    # replace it in protocol.ts

Each `TypedDict` becomes an `export type Wire<Name> = {...}` (a type, not an interface, so
that it fits the client's types with an index signature); a key that may be missing is
`key?:`, `None` is `null`, `Any` is `unknown`. `tests/session/test_schema.py` fails when the
block in `client/src/core/protocol.ts` is not what this generates, so a change to a message on
one side without the other fails a test.
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tf_insight.session.wire import MESSAGES

PROTOCOL_TS = Path(__file__).resolve().parents[2] / "client" / "src" / "core" / "protocol.ts"
BEGIN = ("// ---- Generated from tf_insight/session/wire.py by "
         "`python -m tf_insight.session.typescript --write`: do not edit. ----")
END = "// ---- End of the generated session types. ----"
PREFIX = "Wire"


def generated_block(messages: Iterable[object] = MESSAGES) -> str:
    """The generated declarations, between the BEGIN and END lines."""
    order: list[type] = []
    for message in messages:
        _collect(message, order)
    body = "\n\n".join(_interface(shape) for shape in order)
    return f"{BEGIN}\n\n{body}\n\n{END}"


def replace_block(text: str, block: str) -> str:
    """`text` (protocol.ts) with its generated block replaced by `block`."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + block + text[end:]


def current_block(text: str) -> str:
    """The generated block as it is in `text`."""
    return text[text.index(BEGIN):text.index(END) + len(END)]


def _collect(schema: object, order: list[type]) -> None:
    """Every TypedDict reachable from `schema`, each after those it contains."""
    if typing.is_typeddict(schema):
        shape = typing.cast(type, schema)
        if shape in order:
            return
        order.append(shape)  # first: a shape may contain itself
        for hint in typing.get_type_hints(shape).values():
            _collect(hint, order)
        order.remove(shape)
        order.append(shape)
        return
    for argument in typing.get_args(schema):
        _collect(argument, order)


def _interface(shape: type) -> str:
    required: frozenset[str] = getattr(shape, "__required_keys__", frozenset())
    lines = [f"export type {PREFIX}{shape.__name__} = {{"]
    for name, hint in typing.get_type_hints(shape).items():
        optional = "" if name in required else "?"
        lines.append(f"  {name}{optional}: {_type(hint)};")
    lines.append("};")
    doc = " ".join((shape.__doc__ or "").split())
    return (f"/** {doc} */\n" if doc else "") + "\n".join(lines)


def _type(hint: Any) -> str:
    if hint is type(None) or hint is None:
        return "null"
    if hint is Any or hint is object:
        return "unknown"
    simple = {str: "string", int: "number", float: "number", bool: "boolean"}.get(hint)
    if simple is not None:
        return simple
    if typing.is_typeddict(hint):
        return f"{PREFIX}{hint.__name__}"
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return " | ".join(_literal(value) for value in arguments)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(dict.fromkeys(_type(argument) for argument in arguments))
    if origin is list:
        item = _type(arguments[0])
        return f"({item})[]" if " | " in item else f"{item}[]"
    if origin is dict:
        return f"Record<string, {_type(arguments[1])}>"
    raise TypeError(f"no TypeScript for {hint!r}")


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help=f"replace the block in {PROTOCOL_TS}")
    args = parser.parse_args(argv)
    block = generated_block()
    if args.write:
        PROTOCOL_TS.write_text(replace_block(PROTOCOL_TS.read_text(encoding="utf-8"), block),
                               encoding="utf-8")
    else:
        sys.stdout.write(block + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
