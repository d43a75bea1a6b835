"""Stored data: accounts, leagues, players, sessions (a night at the table; the database's
own session is ``db.session``), hands and every version of every hand.

Money and points are integer hundredths in the ``*_minor`` columns whatever the table counts
in, never floats: 1.50 € is 150, ¥300 is 30000 (yen has no minor unit), 7 points are 700
(:func:`~app.core.money.to_minor`; the currency decides the places shown). The twelve columns
keep the name: a rename changes every schema and every backup (a restore refuses others).

A :class:`Hand` holds its current state; :class:`HandVersion` keeps every version ever
settled (nothing is erased). :class:`HandEntry` rows are the current version's net per
player, for sums in the database; :attr:`SessionPlayer.total_minor` is the running total,
kept up to date in the same transaction as every change, so no page sums all hands;
:class:`PlayerSessionStat` does the same for each player's record in each session, so league
standings sum one row per player and session, never every hand.
"""
from __future__ import annotations

import json
import uuid
from datetime import date, datetime
from typing import Any, Protocol

from flask_login import UserMixin
from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates

from ...core.names import name_key
from ...extensions import db
from ..types import UTCDateTime
from ..types import utcnow as utcnow  # (every row's time: here, as ever)


class User(UserMixin, db.Model):  # type: ignore[name-defined,misc]
    """An account: whoever starts a session owns it and keeps score."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: The language the account chose for its pages and API answers ("en", "de", "ja"), or
    #: None: the browser's Accept-Language decides.
    locale: Mapped[str | None] = mapped_column(String(8), nullable=True)

    #: The key of the sign-in this request came with (see :class:`SignIn`); not stored.
    __allow_unmapped__ = True
    sign_in_key: str | None = None

    def get_id(self) -> str:
        """What Flask-Login keeps in the session and the remember-me cookie: the account
        and its sign-in, so that ending the sign-in ends both cookies."""
        return f"{self.id}:{self.sign_in_key}"


class Author(Protocol):
    """Who records, corrects or voids a hand, as its history keeps them: an account, or a
    tournament table's scorekeeping link (on behalf of the director's account)."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


class SignIn(db.Model):  # type: ignore[name-defined,misc]
    """One signed-in browser: its cookies open the account only while this row exists.
    Signing out deletes it; "sign out everywhere", a new password or a reset delete them
    all. Only the key's SHA-256 is kept."""

    __tablename__ = "sign_ins"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    user: Mapped[User] = relationship()


class ApiToken(db.Model):  # type: ignore[name-defined,misc]
    """A personal API token; only its SHA-256 is kept."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    user: Mapped[User] = relationship()


def new_uid() -> str:
    return uuid.uuid4().hex


class League(db.Model):  # type: ignore[name-defined,misc]
    """Tables that meet again and again: members, admins, default rules, seasons."""

    __tablename__ = "leagues"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str] = mapped_column(String(32), unique=True, default=new_uid)
    name: Mapped[str] = mapped_column(String(80))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                          index=True)
    rules_json: Mapped[str] = mapped_column(Text)
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(8))
    share_token: Mapped[str] = mapped_column(String(43), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: The side bets its sessions play unless told otherwise (JSON, as a session's).
    side_bets_json: Mapped[str | None] = mapped_column(Text)

    owner: Mapped[User] = relationship()
    seasons: Mapped[list[Season]] = relationship(
        order_by="Season.starts_on", back_populates="league", cascade="all, delete-orphan")


class LeagueAdmin(db.Model):  # type: ignore[name-defined,misc]
    """An account that may start and correct sessions in a league (its owner is one too)."""

    __tablename__ = "league_admins"
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"),
                                           primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                         primary_key=True)


class Season(db.Model):  # type: ignore[name-defined,misc]
    """A named date range of a league (both days included)."""

    __tablename__ = "seasons"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"),
                                           index=True)
    name: Mapped[str] = mapped_column(String(80))
    starts_on: Mapped[date] = mapped_column(Date)
    ends_on: Mapped[date] = mapped_column(Date)

    league: Mapped[League] = relationship(back_populates="seasons")


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A person who plays: known by name to the account that keeps score, or, in a league,
    a member of the league (the same person across all its sessions)."""

    __tablename__ = "players"
    __table_args__ = (
        Index("uq_players_personal", "owner_id", "name_key", unique=True,
              sqlite_where=text("league_id IS NULL"),
              postgresql_where=text("league_id IS NULL")),
        Index("uq_players_league", "league_id", "name_key", unique=True,
              sqlite_where=text("league_id IS NOT NULL"),
              postgresql_where=text("league_id IS NOT NULL")),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    league_id: Mapped[int | None] = mapped_column(
        ForeignKey("leagues.id", ondelete="CASCADE", name="fk_players_league_id"))
    name: Mapped[str] = mapped_column(String(40))
    #: :func:`app.core.names.name_key` of the name, kept by :meth:`_keyed`: players are
    #: found and kept unique by it (the same on SQLite and PostgreSQL).
    name_key: Mapped[str] = mapped_column(String(160))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    #: Where the player takes payment: ``{"paypal": "annpays", "iban": …}``
    #: as :mod:`app.services.pay` checked it, JSON; None: none kept. A league member's are
    #: kept for the league's later sessions, a personal player's for the account's.
    pay_json: Mapped[str | None] = mapped_column(Text)

    @validates("name")
    def _keyed(self, _key: str, name: str) -> str:
        self.name_key = name_key(name)
        return name


class GameSession(db.Model):  # type: ignore[name-defined,misc]
    """A night at the table: players in seat order, stake, house rules, and its hands."""

    __tablename__ = "game_sessions"
    __table_args__ = (UniqueConstraint("uid", name="uq_game_sessions_uid"),
                      # a league's sessions, newest first (its page lists 20 of thousands)
                      Index("ix_game_sessions_league_created", "league_id", "created_at", "id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uid: Mapped[str] = mapped_column(String(32), default=new_uid)
    league_id: Mapped[int | None] = mapped_column(
        ForeignKey("leagues.id", ondelete="CASCADE", name="fk_game_sessions_league_id"),
        index=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                          index=True)
    name: Mapped[str] = mapped_column(String(80))
    currency: Mapped[str] = mapped_column(String(8))
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    rules_json: Mapped[str] = mapped_column(Text)
    share_token: Mapped[str] = mapped_column(String(43), unique=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    hand_count: Mapped[int] = mapped_column(Integer, default=0)
    next_dealer: Mapped[int] = mapped_column(Integer, default=0)
    #: Moved by one, and ``updated_at`` set, in the same transaction as every change of the
    #: session (``ledger.locked``): what the share view's ETag and the pages' caches are
    #: keyed on, exact across processes and servers without asking anything but this row.
    revision: Mapped[int] = mapped_column(Integer, server_default="0")
    updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: The side bets the table plays (docs/rules.md §9), each with its stake resolved: JSON, or
    #: None for none.
    side_bets_json: Mapped[str | None] = mapped_column(Text)
    #: Money waiting in each side bet's pot: ``{bet: [[seat, minor], ...]}``, what each seat
    #: paid into it since it was last won. Kept in the same transaction as every change of
    #: a hand (a replay of the hands' side bets, in order).
    pots_json: Mapped[str] = mapped_column(Text, server_default="{}", default="{}")
    #: How many of its hands are void now (``hand_count`` numbers them all): the hands that
    #: count are ``hand_count - voided_hands`` (``ledger.counted_hands``), read by every page.
    voided_hands: Mapped[int] = mapped_column(Integer, server_default="0")
    #: The settle-up plan in force: its :class:`PlannedTransfer` rows carry this number.
    plan_no: Mapped[int] = mapped_column(Integer, server_default="0")
    #: Put away off the home page (nothing erased); None: shown.
    archived_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    owner: Mapped[User] = relationship()
    league: Mapped[League | None] = relationship()
    seats: Mapped[list[SessionPlayer]] = relationship(
        order_by="SessionPlayer.seat", back_populates="session", cascade="all, delete-orphan")

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None

    @property
    def rules_spec(self) -> Any:
        return json.loads(self.rules_json)

    @property
    def side_bets_spec(self) -> dict[str, Any]:
        return json.loads(self.side_bets_json) if self.side_bets_json else {}

    @property
    def dealer(self) -> str:
        """Who deals the next hand."""
        return self.seats[self.next_dealer].name

    @property
    def seated(self) -> list[SessionPlayer]:
        """The players at the table now, in table order (the dealer passes to the next)."""
        return sorted((s for s in self.seats if s.left_at is None), key=lambda s: s.position)


class SessionPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player's seat at a session, with their running total (hands and side bets) and its
    side bets' part. ``seat`` is the player's
    identity in the session (hands' nets and payments are kept by it) and never changes;
    ``position`` is where they sit at the table now; ``left_at`` is set while they are away
    (the row stays: their total stays in the ledger, and they may come back)."""

    __tablename__ = "session_players"
    __table_args__ = (UniqueConstraint("session_id", "seat"),
                      UniqueConstraint("session_id", "player_id"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    name: Mapped[str] = mapped_column(String(40))
    total_minor: Mapped[int] = mapped_column(BigInteger, default=0)
    #: The side bets' part of ``total_minor`` (the kept night: :mod:`app.services.sessions.kept`).
    side_minor: Mapped[int] = mapped_column(BigInteger, server_default="0", default=0)
    position: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
    left_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    session: Mapped[GameSession] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship()


class Hand(db.Model):  # type: ignore[name-defined,misc]
    """One hand of a session in its current version."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("session_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, default=1)
    voided: Mapped[bool] = mapped_column(Boolean, default=False)
    outcome: Mapped[str] = mapped_column(String(16))
    hand_json: Mapped[str] = mapped_column(Text)
    result_json: Mapped[str] = mapped_column(Text)
    nets_json: Mapped[str] = mapped_column(Text)  # current net per seat, minor units
    #: The side bets' money of this deal per seat (minor units; apart from ``nets_json``),
    #: and how each was settled: a replay of the session's side bets keeps both.
    side_nets_json: Mapped[str] = mapped_column(Text, server_default="[]", default="[]")
    side_result_json: Mapped[str] = mapped_column(Text, server_default="[]", default="[]")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    session: Mapped[GameSession] = relationship()
    versions: Mapped[list[HandVersion]] = relationship(
        order_by="HandVersion.version", back_populates="hand", cascade="all, delete-orphan")

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.hand_json)  # type: ignore[no-any-return]

    @property
    def result(self) -> dict[str, Any]:
        return json.loads(self.result_json)  # type: ignore[no-any-return]

    @property
    def nets(self) -> list[int]:
        return json.loads(self.nets_json)  # type: ignore[no-any-return]

    @property
    def side_nets(self) -> list[int]:
        return json.loads(self.side_nets_json)  # type: ignore[no-any-return]

    @property
    def side_result(self) -> list[dict[str, Any]]:
        return json.loads(self.side_result_json)  # type: ignore[no-any-return]


class HandVersion(db.Model):  # type: ignore[name-defined,misc]
    """One version of a hand: as recorded, as corrected, or voided, with who, when, why."""

    __tablename__ = "hand_versions"
    __table_args__ = (UniqueConstraint("hand_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(10))  # recorded, corrected, voided
    hand_json: Mapped[str] = mapped_column(Text)
    result_json: Mapped[str] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    by_name: Mapped[str] = mapped_column(String(80))  # who, as the history shows it
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    hand: Mapped[Hand] = relationship(back_populates="versions")
    created_by: Mapped[User] = relationship()


class HandEntry(db.Model):  # type: ignore[name-defined,misc]
    """A player's net in the current version of a hand (none for a voided hand)."""

    __tablename__ = "hand_entries"
    __table_args__ = (Index("ix_hand_entries_session_player", "session_id", "player_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"),
                                         index=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    scoring: Mapped[str] = mapped_column(String(10))
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    won: Mapped[bool] = mapped_column(Boolean, default=False)
    tonked_out: Mapped[bool] = mapped_column(Boolean, default=False)
    drop_won: Mapped[bool] = mapped_column(Boolean, default=False)
    caught: Mapped[bool] = mapped_column(Boolean, default=False)


class PlayerSessionStat(db.Model):  # type: ignore[name-defined,misc]
    """A player's record in one session under one scoring, kept up to date with every change
    of a hand: what league standings add up."""

    __tablename__ = "player_session_stats"
    __table_args__ = (Index("ix_player_session_stats_league", "league_id", "played_at"),
                      Index("ix_player_session_stats_player", "player_id", "played_at"),
                      # What the league pages read, in their order and covering: standings
                      # group by player and scoring, a player's record and the hands behind
                      # a number take one player's rows by time; none reads the table.
                      Index("ix_player_session_stats_record", "league_id", "player_id",
                            "scoring", "played_at", "session_id", "hands", "net_minor",
                            "hands_won", "tonks_out", "drops_won", "times_caught"))
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), primary_key=True)
    scoring: Mapped[str] = mapped_column(String(10), primary_key=True)
    league_id: Mapped[int | None] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"))
    played_at: Mapped[datetime] = mapped_column(UTCDateTime())
    net_minor: Mapped[int] = mapped_column(BigInteger, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    hands_won: Mapped[int] = mapped_column(Integer, default=0)
    tonks_out: Mapped[int] = mapped_column(Integer, default=0)
    drops_won: Mapped[int] = mapped_column(Integer, default=0)
    times_caught: Mapped[int] = mapped_column(Integer, default=0)


class Rating(db.Model):  # type: ignore[name-defined,misc]
    """A player's league rating (openskill: mu and its uncertainty sigma), updated as each of
    the league's sessions closes."""

    __tablename__ = "ratings"
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id", ondelete="CASCADE"),
                                           primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"),
                                           primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    sessions: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class OfSession:
    """A row of one session's: its own id and its session's (deleted with the session), the
    table's first two columns."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, sort_order=-2)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"), index=True, sort_order=-1)


class PlannedTransfer(OfSession, db.Model):  # type: ignore[name-defined,misc]
    """One transfer of a session's settle-up plan (the fewest transfers): made when the
    totals change, not when money moves, so a payment along it shrinks it alone. Each plan
    has its number (``plan``); the session's ``plan_no`` names the one in force, and older
    plans stay for the payments made along them."""

    __tablename__ = "planned_transfers"
    plan: Mapped[int] = mapped_column(Integer)
    payer_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    payee_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SettlePayment(OfSession, db.Model):  # type: ignore[name-defined,misc]
    """Money actually handed over at settle-up, in full or in part: along a planned transfer
    (``transfer_id``) or outside the plan (None). Undone, it stays, with who, when and why."""

    __tablename__ = "settle_payments"
    payer_seat: Mapped[int] = mapped_column(Integer)
    payee_seat: Mapped[int] = mapped_column(Integer)
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    transfer_id: Mapped[int | None] = mapped_column(
        ForeignKey("planned_transfers.id", name="fk_settle_payments_transfer_id"))
    undone_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    undone_by_name: Mapped[str | None] = mapped_column(String(80))
    undo_reason: Mapped[str | None] = mapped_column(Text)
    by_name: Mapped[str | None] = mapped_column(String(80))  # who marked it, as shown

    created_by: Mapped[User] = relationship()


class CarriedDebt(OfSession, db.Model):  # type: ignore[name-defined,misc]
    """A transfer still open when its session was closed with the debts carried over: shown
    on the players' and the league's pages until marked paid (who, when)."""

    __tablename__ = "carried_debts"
    payer_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    payee_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    paid_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    paid_by_name: Mapped[str | None] = mapped_column(String(80))

    session: Mapped[GameSession] = relationship()
    payer: Mapped[Player] = relationship(foreign_keys=[payer_id])
    payee: Mapped[Player] = relationship(foreign_keys=[payee_id])


class RulesChange(OfSession, db.Model):  # type: ignore[name-defined,misc]
    """A change of house rules or stake during a session: applies from ``from_hand`` on."""

    __tablename__ = "rules_changes"
    from_hand: Mapped[int] = mapped_column(Integer)
    rules_json: Mapped[str] = mapped_column(Text)
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class SeatChange(OfSession, db.Model):  # type: ignore[name-defined,misc]
    """A player who joined the table (just ``after`` a seated player) or left it, once
    ``hands`` hands had been recorded, in the order of ``id``: the night's seat events
    (:mod:`app.core.night`) as the table made them, so that a fold of the stored night
    seats its players as the table did (a leave and a return between two hands leave no
    other trace)."""

    __tablename__ = "seat_changes"
    hands: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # joined, left
    player: Mapped[str] = mapped_column(String(40))
    after: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    @property
    def event(self) -> dict[str, Any]:
        """The core's event (``joined`` or ``left``)."""
        return {"kind": self.kind, "player": self.player,
                **({"after": self.after} if self.kind == "joined" else {})}


class NightEvent(db.Model):  # type: ignore[name-defined,misc]
    """One event of a night started on a phone (:mod:`app.core.night`), stored once under
    the id the phone made for it, at its place ``seq`` in the night (from 1, ``started``),
    as sent (``body``); ``made``: what the server made of it that later events name (a hand's
    number, a payment's id). The session's ``uid`` is the phone's for the night."""

    __tablename__ = "night_events"
    __table_args__ = (UniqueConstraint("session_id", "event_id", name="uq_night_events_id"),
                      UniqueConstraint("session_id", "seq", name="uq_night_events_seq"))
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("game_sessions.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    event_id: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))
    body: Mapped[str] = mapped_column(Text)
    made: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class RequestKey(db.Model):  # type: ignore[name-defined,misc]
    """A write the network may repeat, by its key (an API ``Idempotency-Key``, or the one-time
    token of a form), with the answer it got: the same request again gets the same answer
    and changes nothing. Written in the same transaction as the change itself: ``pending``
    until the answer is kept beside it, then ``done``."""

    __tablename__ = "request_keys"
    __table_args__ = (UniqueConstraint("user_id", "key", name="uq_request_keys_user_key"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str] = mapped_column(String(64))  # SHA-256 of method, path, body
    state: Mapped[str] = mapped_column(String(8))  # pending, done
    status: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[str | None] = mapped_column(Text)
    location: Mapped[str | None] = mapped_column(String(2000))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow,
                                                 index=True)


# The tournaments' tables (a module of their own), registered with the others.
from .tournaments import Event as Event  # noqa: E402
from .tournaments import EventPlayer as EventPlayer  # noqa: E402
from .tournaments import EventRound as EventRound  # noqa: E402
from .tournaments import EventTable as EventTable  # noqa: E402
