"""Typed keys of the values worked out once per module and shared by the rules that ask for
them (`ModuleContext.shared`): each key carries its value's type, so that two askers can
never disagree on it, and no asker needs a cast."""

from __future__ import annotations

from typing import Generic, TypeVar

# covariant: every key is a `Shared[object]` to the table that holds the values
T_co = TypeVar("T_co", covariant=True)


class Shared(Generic[T_co]):
    """The key of one shared per-module value of type `T_co` (`Shared[set[str]]("module
    stores")`); compared by identity, so each is made once, at module level."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Shared({self.name!r})"
