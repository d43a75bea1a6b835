"""The tournament pages: the director's (set an event up, check players in, draw and close
rounds, the tables' links: :mod:`.directing`), a table's scorekeeping link ``/t/<token>``
(:mod:`.keeping`, the session's own hand forms and pages) and the standings, the board and
each player's page (:mod:`.standing`). Their endpoints are ``web.<view>``."""
from pathlib import Path

from . import directing as directing
from . import keeping as keeping
from . import standing as standing

TEMPLATES = Path(__file__).parent / "templates"
