"""The catalogue of known graph-mode errors and warnings, in matching order.

Entries are tried in order and the first match wins, so narrow entries come before broad
ones with the same message (RematScope before the general custom_gradient entry), and
entries that match only on a wrapper (`FALLBACKS`) come last.
"""

from __future__ import annotations

from tf_insight.explain.catalogue import (
    gradients,
    summaries,
    symbolic,
    tracing,
    training,
    variables,
)
from tf_insight.explain.catalogue.entry import Entry, Locate, fill
from tf_insight.explain.model import Incident

ENTRIES: list[Entry] = [
    *gradients.ENTRIES,
    *symbolic.ENTRIES,
    *variables.ENTRIES,
    *summaries.ENTRIES,
    *training.ENTRIES,
    *tracing.ENTRIES,
    *symbolic.FALLBACKS,
    *tracing.FALLBACKS,
]

_BY_ID = {entry.id: entry for entry in ENTRIES}


def get_entry(entry_id: str) -> Entry | None:
    """The entry with this id, or None."""
    return _BY_ID.get(entry_id)


def find_entry(incident: Incident) -> tuple[Entry, dict[str, str]] | None:
    """The first entry that explains `incident`, with its template values."""
    for candidate in ENTRIES:
        values = candidate.match(incident)
        if values is not None:
            return candidate, values
    return None


__all__ = ["ENTRIES", "Entry", "Locate", "fill", "find_entry", "get_entry"]
