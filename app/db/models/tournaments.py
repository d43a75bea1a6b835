"""Stored data of a tournament (:mod:`app.services.events`): the event, the players checked
in, its rounds and their tables (each table a session). Part of :mod:`app.db.models`, which
registers them with the others."""
from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates

from ...core.names import name_key
from ...extensions import db
from ..types import UTCDateTime, utcnow

if TYPE_CHECKING:
    from . import GameSession, User


class Event(db.Model):  # type: ignore[name-defined,misc]
    """A tournament: players check in and pay a fee, are drawn to tables round by round,
    and the totals over all rounds make the prize list. Each table is a session."""

    __tablename__ = "events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    league_id: Mapped[int | None] = mapped_column(
        ForeignKey("leagues.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    held_on: Mapped[date] = mapped_column(Date)
    rules_json: Mapped[str] = mapped_column(Text)  # resolved, with the event's scoring
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(8))
    table_size: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    hands_per_round: Mapped[int] = mapped_column(Integer)
    fee_minor: Mapped[int] = mapped_column(BigInteger)
    house_share: Mapped[str] = mapped_column(String(20))  # a decimal, "0.1"
    payout_json: Mapped[str] = mapped_column(Text)  # {"kind": "shares"|"fixed", "amounts"}
    tie_breaks_json: Mapped[str] = mapped_column(Text)
    board_token: Mapped[str] = mapped_column(String(43), unique=True)  # the TV's link
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    owner: Mapped[User] = relationship()
    players: Mapped[list[EventPlayer]] = relationship(
        back_populates="event", order_by="EventPlayer.id", cascade="all, delete-orphan")
    round_rows: Mapped[list[EventRound]] = relationship(
        back_populates="event", order_by="EventRound.number", cascade="all, delete-orphan")


class EventPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player checked in to an event: their fee (paid or not) and, once withdrawn, the
    last round they were drawn for (their hands there stay)."""

    __tablename__ = "event_players"
    __table_args__ = (UniqueConstraint("event_id", "name_key", name="uq_event_players_name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(160))
    paid_minor: Mapped[int] = mapped_column(BigInteger, default=0)
    checked_in_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    withdrawn_after: Mapped[int | None] = mapped_column(Integer)  # rounds drawn by then

    event: Mapped[Event] = relationship(back_populates="players")

    @validates("name")
    def _keyed(self, _key: str, name: str) -> str:
        self.name_key = name_key(name)
        return name


class EventRound(db.Model):  # type: ignore[name-defined,misc]
    """One round of an event: the seed its draw came from, open until the director closes
    it (forced: with tables short of the hands per round)."""

    __tablename__ = "event_rounds"
    __table_args__ = (UniqueConstraint("event_id", "number", name="uq_event_rounds_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    forced: Mapped[bool] = mapped_column(Boolean, default=False)

    event: Mapped[Event] = relationship(back_populates="round_rows")
    tables: Mapped[list[EventTable]] = relationship(
        back_populates="round", order_by="EventTable.number", cascade="all, delete-orphan")


class EventTable(db.Model):  # type: ignore[name-defined,misc]
    """A table of a round: its session, and the scorekeeping link's token (the phone that
    holds it records at this table during this round, and nothing else)."""

    __tablename__ = "event_tables"
    __table_args__ = (UniqueConstraint("round_id", "number", name="uq_event_tables_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("event_rounds.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"), unique=True)
    keeper_token: Mapped[str] = mapped_column(String(43), unique=True)

    round: Mapped[EventRound] = relationship(back_populates="tables")
    session: Mapped[GameSession] = relationship()
