"""The night's money: sessions, their hands, seats, side-bet pots, settle-up, carried debts,
archive and the live view. The public front of the package: pages, API, command line and
the other services use these names only (a test keeps them to it); every change of a
session's money runs under the session's lock (:func:`.ledger.locked`).

The package, module by job:

- :mod:`.ledger`: start a session, record, correct and void hands, change the house rules,
  payments and closing; totals and the settle-up state (:func:`ledger_of`).
- :mod:`.reading`: a session's rules, stake and players, its share link, a hand's history
  and the running totals for the chart.
- :mod:`.writes`: the hot writes of a hand's change, as plain statements.
- :mod:`.access`: who keeps a session's score and who runs a league (:func:`keeps_score`,
  :func:`is_league_admin`), and the sessions an account keeps.
- :mod:`.inputs`: what a person types for a session (name, currency, reason, a payment's
  amount), read and checked.
- :mod:`.kept`: the night as the server keeps it, the core's state, read from the rows
  and written back once an event is applied (seats' money, pots, dealer).
- :mod:`.entries`: a hand's effect on what is stored beside it (entries, player records).
- :mod:`.seats`: players joining and leaving (a seat is never removed).
- :mod:`.pots`: side bets stored, the pots and what they give back.
- :mod:`.settleup`: the kept settle-up plan, payments along it and their undo.
- :mod:`.debts`: what is carried over at closing, until marked paid.
- :mod:`.archive`: archiving and deleting sessions.
- :mod:`.live`: a session's state by its share link from one row, for the live view.
- :mod:`.notify`: word of a session's change at commit (this process, PostgreSQL NOTIFY).
- :mod:`.phone`: a session's state as the phone counts from it with no signal.
- :mod:`.sent`: a night started on a phone with no signal, taken as its events, each once.

Their errors, and the HTTP status of each, are in :mod:`app.services.errors`.
"""
from __future__ import annotations

from .access import is_league_admin, keeps_score, keeps_score_of, sessions_of, started_by
from .archive import archived_sessions_of, delete_session, set_archived
from .debts import (
    Debt,
    debts_of_session,
    mark_paid,
    open_debts_of,
    open_debts_of_league,
    open_debts_of_player,
)
from .folded import running_totals, stored_night
from .inputs import (
    MAX_SESSION_NAME,
    parse_amount,
    parse_currency,
    parse_reason,
    parse_session_name,
)
from .kept import dump_pots, kept_night, seat_side, trimmed
from .ledger import (
    change_rules,
    check_room,
    close_session,
    correct_hand,
    create_session,
    get_hand,
    hand_limit,
    hand_limits,
    ledger_of,
    owned_session,
    record_hand,
    record_payment,
    replace_share_link,
    session_closed,
    start_session,
    undo_payment,
    void_hand,
)
from .live import Stamp, StateCache, last_hands, owned_stamp, stamp_by_token, stamp_of
from .notify import listen as listen_for_moves
from .notify import on_moved
from .phone import phone_table
from .pots import pot_totals, side_bets_text, taken_back
from .reading import (
    counted_hands,
    findable_token,
    history,
    known_player_names,
    new_share_token,
    player_names,
    rules_of,
    seated_names,
    session_rules,
    session_stake,
    shared_session,
)
from .seats import change_seats
from .sent import (
    MAX_NIGHT_EVENTS,
    MAX_NIGHT_SEQ,
    NIGHT_EVENT_ID,
    NIGHT_FIELDS,
    NIGHT_SHARE_TOKEN,
    NIGHT_UID,
    NightSent,
    send_night,
)
from .settleup import Ledger, PaymentMade, keep_plan, money_of, remaining

__all__ = [
    "MAX_NIGHT_EVENTS", "MAX_NIGHT_SEQ", "MAX_SESSION_NAME", "NIGHT_EVENT_ID",
    "NIGHT_FIELDS", "NIGHT_SHARE_TOKEN", "NIGHT_UID", "Debt", "Ledger", "NightSent",
    "PaymentMade", "Stamp", "StateCache",
    "archived_sessions_of", "change_rules", "change_seats", "check_room", "close_session",
    "correct_hand", "counted_hands", "create_session", "debts_of_session", "delete_session",
    "dump_pots", "findable_token", "get_hand", "hand_limit", "hand_limits", "history",
    "is_league_admin", "keep_plan", "kept_night", "keeps_score", "keeps_score_of",
    "known_player_names", "last_hands", "ledger_of", "mark_paid", "money_of", "new_share_token",
    "open_debts_of", "open_debts_of_league", "open_debts_of_player", "owned_session",
    "owned_stamp", "parse_amount", "parse_currency", "parse_reason", "parse_session_name",
    "phone_table", "player_names", "pot_totals", "record_hand", "record_payment", "remaining",
    "replace_share_link", "rules_of", "running_totals", "seated_names", "send_night",
    "session_closed", "session_rules", "session_stake", "sessions_of", "set_archived",
    "seat_side", "shared_session", "side_bets_text", "stamp_by_token",
    "stamp_of", "start_session", "started_by", "stored_night", "taken_back", "trimmed",
    "listen_for_moves", "on_moved",
    "undo_payment",
    "void_hand",
]
