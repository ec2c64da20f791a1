"""Checks a JSON value against a `TypedDict`, field by field, as it reads it.

The session's messages cross process boundaries as JSON (debuggee → runner over a pipe,
runner → debuggee over the control pipe, server → client as LSP notifications). Each side
reads them with `read(value, SomeMessage, "where")`, which walks the `TypedDict`'s fields and
their types (`str`, `int`, `float`, `bool`, `None`, `Literal`, unions, `list[...]`,
`dict[str, ...]`, nested `TypedDict`s, `Any`) and raises `MessageError` naming the first field
that is missing, unknown or of the wrong type (`step.location.line: expected int, got str`),
as debugpy's messaging checks each field it reads. One checker per type is compiled once.

Standard library only: the debuggee loads this package in the user's interpreter.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")
Check = Callable[[Any, str], None]

_CHECKS: dict[object, Check] = {}


class MessageError(ValueError):
    """A message that does not have the shape its schema says."""


def read(value: object, schema: type[T], where: str) -> T:
    """`value` as a `schema` (a `TypedDict`), once every field has been checked; `where` names
    the message in the error (`step`, `summary.functions[3]`)."""
    checker(schema)(value, where)
    return cast(T, value)


def checker(schema: object) -> Check:
    """The compiled check of a type (cached: types are few, messages many)."""
    check = _CHECKS.get(schema)
    if check is None:
        if typing.is_typeddict(schema):
            # Registered before its fields are compiled: a type may contain itself.
            fields: dict[str, Check] = {}
            check = _CHECKS[schema] = _typed_dict(cast(type, schema), fields)
            hints = typing.get_type_hints(schema)
            fields.update({name: checker(hint) for name, hint in hints.items()})
        else:
            check = _CHECKS[schema] = _compile(schema)
    return check


def type_name(schema: object) -> str:
    """How an error names an expected type: `int`, `str | None`, `list[Frame]`."""
    if schema is type(None) or schema is None:
        return "None"
    if schema is Any:
        return "any"
    origin, arguments = typing.get_origin(schema), typing.get_args(schema)
    if origin is typing.Literal:
        return " | ".join(repr(argument) for argument in arguments)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(argument) for argument in arguments)
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_name(a) for a in arguments)}]"
    return str(getattr(schema, "__name__", schema))


def _compile(schema: object) -> Check:
    if schema is Any or schema is object:
        return _anything
    if schema is type(None) or schema is None:
        return _exactly(lambda value: value is None, "None")
    if schema is bool:
        return _exactly(lambda value: isinstance(value, bool), "bool")
    if schema is int:
        return _exactly(lambda value: isinstance(value, int) and not isinstance(value, bool),
                        "int")
    if schema is float:  # JSON has one kind of number: 3 is a float too
        return _exactly(lambda value: isinstance(value, int | float)
                        and not isinstance(value, bool), "float")
    if schema is str:
        return _exactly(lambda value: isinstance(value, str), "str")
    origin, arguments = typing.get_origin(schema), typing.get_args(schema)
    if origin is typing.Literal:
        allowed = arguments
        return _exactly(lambda value: any(value == a and type(value) is type(a) for a in allowed),
                        type_name(schema))
    if origin in (typing.Union, types.UnionType):
        return _union(schema, [checker(argument) for argument in arguments])
    if origin is list:
        return _list(checker(arguments[0]))
    if origin is dict:
        return _dict(checker(arguments[1]))
    raise TypeError(f"no check for {schema!r}")


def _anything(value: object, where: str) -> None:
    pass


def _exactly(accepts: Callable[[Any], bool], expected: str) -> Check:
    def check(value: object, where: str) -> None:
        if not accepts(value):
            raise MessageError(f"{where}: expected {expected}, got {_got(value)}")

    return check


def _union(schema: object, options: list[Check]) -> Check:
    def check(value: object, where: str) -> None:
        errors: list[MessageError] = []
        for option in options:
            try:
                option(value, where)
            except MessageError as error:
                errors.append(error)
                continue
            return
        nested = [error for error in errors if not str(error).startswith(f"{where}: expected")]
        if len(nested) == 1:  # one option took the value's shape: say where inside it failed
            raise nested[0]
        raise MessageError(f"{where}: expected {type_name(schema)}, got {_got(value)}")

    return check


def _list(item: Check) -> Check:
    def check(value: object, where: str) -> None:
        if not isinstance(value, list):
            raise MessageError(f"{where}: expected a list, got {_got(value)}")
        for index, element in enumerate(value):
            item(element, f"{where}[{index}]")

    return check


def _dict(item: Check) -> Check:
    def check(value: object, where: str) -> None:
        if not isinstance(value, dict):
            raise MessageError(f"{where}: expected an object, got {_got(value)}")
        for key, element in value.items():
            if not isinstance(key, str):
                raise MessageError(f"{where}: a key is {_got(key)}, not a string")
            item(element, f"{where}.{key}")

    return check


def _typed_dict(schema: type, fields: dict[str, Check]) -> Check:
    required: frozenset[str] = getattr(schema, "__required_keys__", frozenset())

    def check(value: object, where: str) -> None:
        if not isinstance(value, dict):
            raise MessageError(f"{where}: expected {schema.__name__}, got {_got(value)}")
        for name in required:
            if name not in value:
                raise MessageError(f"{where}.{name}: missing")
        for name, element in value.items():
            field = fields.get(name)
            if field is None:
                raise MessageError(f"{where}.{name}: not a field of {schema.__name__}")
            field(element, f"{where}.{name}")

    return check


def _got(value: object) -> str:
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'…' if len(text) > 40 else ''}"
