"""What an import says it did, or every problem that stopped it (:class:`ImportReport`)."""
from __future__ import annotations

from dataclasses import dataclass, field

#: The longest a problem of the report is: a value quoted from the file is cut in the middle.
MAX_PROBLEM_CHARS = 500


def brief(message: str) -> str:
    """A problem as the report says it, never longer than MAX_PROBLEM_CHARS (a file may hold
    a name or a number of millions of characters; the report names it, not repeats it)."""
    if len(message) <= MAX_PROBLEM_CHARS:
        return message
    half = (MAX_PROBLEM_CHARS - 3) // 2
    return f"{message[:half]} … {message[-half:]}"


@dataclass
class ImportReport:
    """What an import did; or every problem that stopped it, and then nothing was imported."""

    sessions: int = 0
    hands: int = 0
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    more_problems: int = 0
    league_id: int | None = None
    league_name: str | None = None
    league_created: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems
