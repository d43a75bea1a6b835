"""Accounts: sign-up and sign-in with argon2-hashed passwords, and personal API tokens
(only a token's SHA-256 is stored; the token itself is shown once)."""
from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError

from .core.errors import TonkError
from .core.hand import clean_text
from .extensions import db
from .models import ApiToken, User, utcnow

_HASHER = PasswordHasher()
_EMAIL = re.compile(r"^[^@\s\x00-\x1f]+@[^@\s\x00-\x1f]+\.[^@\s\x00-\x1f]+$")
MIN_PASSWORD = 8
TOKEN_PREFIX = "tt_"
NOTE_USE = timedelta(minutes=1)


class AccountError(TonkError):
    """Sign-up or sign-in input that cannot be accepted."""


def normal_email(email: Any) -> str:
    if not isinstance(email, str) or not _EMAIL.match(email.strip()) or len(email) > 254:
        raise AccountError("enter an email address like ann@example.com", "email")
    return email.strip().lower()


def create_user(email: Any, name: Any, password: Any) -> User:
    """A new account; the email must not be taken."""
    address = normal_email(email)
    name = clean_text(name, AccountError, "name", "your name", 80)
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AccountError(f"the password needs at least {MIN_PASSWORD} characters",
                           "password")
    if db.session.scalar(select(User.id).where(func.lower(User.email) == address)):
        raise AccountError("there is already an account with this email; sign in instead",
                           "email")
    user = User(email=address, name=name,
                password_hash=_HASHER.hash(password))
    db.session.add(user)
    db.session.commit()
    return user


def authenticate(email: Any, password: Any) -> User | None:
    """The user with this email and password, or None."""
    try:
        address = normal_email(email)
    except AccountError:
        return None
    user = db.session.scalar(select(User).where(User.email == address))
    if user is None or not isinstance(password, str):
        _HASHER.hash("timing")  # answer as slowly as for a real account
        return None
    try:
        _HASHER.verify(user.password_hash, password)
    except (VerificationError, InvalidHashError):
        return None
    if _HASHER.check_needs_rehash(user.password_hash):
        user.password_hash = _HASHER.hash(password)
        db.session.commit()
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(user: User, label: Any) -> str:
    """A new personal API token for ``user``; returns the token, which is not stored."""
    label = clean_text(label, AccountError, "label", "the token's name", 80)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    db.session.add(ApiToken(user_id=user.id, label=label, token_hash=_digest(token)))
    db.session.commit()
    return token


def user_for_token(token: str) -> User | None:
    """The owner of a personal token, or None. When the token was last used is noted at most
    once a minute, and only if the database can take it: a busy or read-only database still
    answers every read."""
    row = db.session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(token)))
    if row is None:
        return None
    user = row.user
    now = utcnow()
    last = row.last_used_at
    if last is None or (last if last.tzinfo else last.replace(tzinfo=UTC)) < now - NOTE_USE:
        try:
            row.last_used_at = now
            db.session.commit()
        except DBAPIError:
            db.session.rollback()
    return user


def revoke_token(user: User, token_id: int) -> None:
    row = db.session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id:
        raise AccountError("no such token", "token")
    db.session.delete(row)
    db.session.commit()
