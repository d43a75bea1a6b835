"""Stored data: accounts, players, sessions (a night at the table), hands and every version
of every hand. Money and points are integer hundredths (``*_minor``), never floats.

A :class:`Hand` holds its current state; :class:`HandVersion` keeps every version ever
settled (nothing is erased). :class:`HandEntry` rows are the current version's net per
player, for sums in the database; :attr:`SessionPlayer.total_minor` is the running total,
kept up to date in the same transaction as every change, so no page sums all hands.
"""
from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask_login import UserMixin
from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db


def utcnow() -> datetime:
    return datetime.now(UTC)


class User(UserMixin, db.Model):  # type: ignore[name-defined,misc]
    """An account: whoever starts a session owns it and keeps score."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiToken(db.Model):  # type: ignore[name-defined,misc]
    """A personal API token; only its SHA-256 is kept."""

    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    user: Mapped[User] = relationship()


class Player(db.Model):  # type: ignore[name-defined,misc]
    """A person who plays, known by name to the account that keeps score."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("owner_id", "name"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GameSession(db.Model):  # type: ignore[name-defined,misc]
    """A night at the table: players in seat order, stake, house rules, and its hands."""

    __tablename__ = "game_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"),
                                          index=True)
    name: Mapped[str] = mapped_column(String(80))
    currency: Mapped[str] = mapped_column(String(8))
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    rules_json: Mapped[str] = mapped_column(Text)
    share_token: Mapped[str] = mapped_column(String(43), unique=True)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    hand_count: Mapped[int] = mapped_column(Integer, default=0)
    next_dealer: Mapped[int] = mapped_column(Integer, default=0)

    owner: Mapped[User] = relationship()
    seats: Mapped[list[SessionPlayer]] = relationship(
        order_by="SessionPlayer.seat", back_populates="session", cascade="all, delete-orphan")

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    @property
    def rules_spec(self) -> Any:
        return json.loads(self.rules_json)


class SessionPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player's seat at a session, with their running total."""

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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

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
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    won: Mapped[bool] = mapped_column(Boolean, default=False)


class SettlePayment(db.Model):  # type: ignore[name-defined,misc]
    """Money actually handed over at settle-up, in full or in part."""

    __tablename__ = "settle_payments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"), index=True)
    payer_seat: Mapped[int] = mapped_column(Integer)
    payee_seat: Mapped[int] = mapped_column(Integer)
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RulesChange(db.Model):  # type: ignore[name-defined,misc]
    """A change of house rules or stake during a session: applies from ``from_hand`` on."""

    __tablename__ = "rules_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("game_sessions.id", ondelete="CASCADE"), index=True)
    from_hand: Mapped[int] = mapped_column(Integer)
    rules_json: Mapped[str] = mapped_column(Text)
    stake_minor: Mapped[int] = mapped_column(BigInteger)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
