"""The sessions' pages: a night's list and its new-session form, recording and correcting
hands, the chart, the house rules, seats, settle-up and closing, the read-only share view,
the night on paper, pay links, and the night on the phone (its page, the core it counts with,
the service worker and the outbox). Their endpoints are ``web.<view>``
(:data:`app.web.shared.bp`).

A table's link (the tournaments) records, corrects and voids hands with the session's own
forms and pages: the names below."""
from pathlib import Path

from . import nights as nights  # (a night started on the phone, sent later)
from . import offline as offline  # (the app on the phone: manifest, worker)
from . import paper as paper  # (the night on paper)
from . import pay as pay  # (pay links and handles)
from . import phone_core as phone_core  # (the core on the phone)
from . import seats as seats  # (joining and leaving the table)
from . import settling as settling  # (settle-up, closing, archive)
from .pages import correct_view, hand_page, record_view, void_hand_view

TEMPLATES = Path(__file__).parent / "templates"

__all__ = ["TEMPLATES", "correct_view", "hand_page", "record_view", "void_hand_view"]
