"""Accounts: sign-up and sign-in with argon2-hashed passwords, the password policy,
sign-ins kept on the server (signing out ends them for good), password change and reset,
and personal API tokens (only a token's or a sign-in's SHA-256 is stored; the token itself
is shown once)."""
from __future__ import annotations

import hashlib
import re
import secrets
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.util import identity_key

from ..core.errors import TonkError
from ..core.messages import Message
from ..core.names import clean_text
from ..db.models import ApiToken, SignIn, User, utcnow
from ..db.storage import read_before_write
from ..extensions import db

#: The password hasher (argon2 at its defaults); the tests put a fast one in its place.
HASHER = PasswordHasher()
_EMAIL = re.compile(r"^[^@\s\x00-\x1f]+@[^@\s\x00-\x1f]+\.[^@\s\x00-\x1f]+$")
MIN_PASSWORD = 10
MAX_PASSWORD = 1000  # a pass phrase, not a file: argon2 need not hash megabytes
TOKEN_PREFIX = "tt_"
NOTE_USE = timedelta(minutes=1)
RESET_SECONDS = 3600
COMMON_PASSWORDS = Path(__file__).resolve().parents[1] / "data" / "common-passwords.txt"


class AccountError(TonkError):
    """Sign-up or sign-in input that cannot be accepted."""


def normal_email(email: Any) -> str:
    if not isinstance(email, str) or not _EMAIL.match(email.strip()) or len(email) > 254:
        raise AccountError(Message("account.email"), "email")
    return email.strip().lower()


@cache
def common_passwords() -> frozenset[str]:
    """The 10,000 most common passwords (``data/common-passwords.txt``), case-folded."""
    lines = COMMON_PASSWORDS.read_text(encoding="utf-8").splitlines()
    return frozenset(line.casefold() for line in lines if line and not line.startswith("#"))


def check_password(password: Any, field: str = "password") -> str:
    """A password the account may have: at least 10 characters, not only spaces or
    control characters, not one of the 10,000 most common. Raises :class:`AccountError`."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AccountError(Message("password.too_short", n=MIN_PASSWORD), field)
    if len(password) > MAX_PASSWORD:
        raise AccountError(Message("password.too_long", n=MAX_PASSWORD), field)
    if all(c.isspace() or unicodedata.category(c)[0] in "CZ" for c in password):
        raise AccountError(Message("password.blank"), field)
    if password.casefold() in common_passwords() or \
            " ".join(password.split()).casefold() in common_passwords():
        raise AccountError(Message("password.common"), field)
    return password


def _account_name(name: Any) -> str:
    return clean_text(name, AccountError, "name", Message("account.what_name"), 80)


def sign_up_problems(email: Any, name: Any, password: Any) -> list[AccountError]:
    """What is wrong with a sign-up's email, name and password, each by its field, all at
    once (whether the email is taken is :func:`create_user`'s to find)."""
    problems = []
    for check, value in ((normal_email, email), (_account_name, name),
                         (check_password, password)):
        try:
            check(value)
        except AccountError as exc:
            problems.append(exc)
    return problems


def create_user(email: Any, name: Any, password: Any) -> User:
    """A new account; the email must not be taken. Raises the first of
    :func:`sign_up_problems`."""
    problems = sign_up_problems(email, name, password)
    if problems:
        raise problems[0]
    address, name = normal_email(email), _account_name(name)
    if db.session.scalar(select(User.id).where(func.lower(User.email) == address)):
        raise AccountError(Message("account.email_taken"),
                           "email")
    user = User(email=address, name=name,
                password_hash=HASHER.hash(password))
    db.session.add(user)
    db.session.flush()
    return user


def user_by_email(email: Any) -> User | None:
    try:
        address = normal_email(email)
    except AccountError:
        return None
    return db.session.scalar(select(User).where(User.email == address))


#: Passwords checked at once in one process, at most. argon2 takes the cores (64 MiB, four
#: lanes) for a tenth of a second or more, and a worker answers everyone in a few threads:
#: wrong passwords sent by the dozen would take every thread the table's hands need. A
#: sign-in past it is told to try again in a moment (:class:`ChecksBusy`).
CHECKS_AT_ONCE = 1
CHECKS = threading.BoundedSemaphore(CHECKS_AT_ONCE)


class ChecksBusy(RuntimeError):
    """As many passwords as :data:`CHECKS_AT_ONCE` are being checked in this process: this
    one is not (try again in a moment)."""


@contextmanager
def _checking() -> Iterator[None]:
    if not CHECKS.acquire(blocking=False):
        raise ChecksBusy
    try:
        yield
    finally:
        CHECKS.release()


def authenticate(email: Any, password: Any) -> User | None:
    """The user with this email and password, or None (:class:`ChecksBusy` when too many
    passwords are being checked at this moment). It only reads, so that the (slow)
    argon2 check runs before any write boundary opens (on SQLite the table's changes would
    wait for it): what a sign-in writes is :func:`start_sign_in`'s short write. A hash made
    at a lower cost than today's is made again here, and kept by :func:`start_sign_in`."""
    user = user_by_email(email)
    with _checking():
        if user is None or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            HASHER.hash("timing")  # answer as slowly as for a real account
            return None
        try:
            HASHER.verify(user.password_hash, password)
        except (VerificationError, InvalidHashError):
            return None
        if HASHER.check_needs_rehash(user.password_hash):
            db.session.info[_FRESH_HASH] = (user.id, user.password_hash,
                                            HASHER.hash(password))
    return user


#: In a session's info: (account id, its hash as read, the same password's hash made at
#: today's cost), found due by :func:`authenticate`, kept by :func:`start_sign_in`.
_FRESH_HASH = "tonk_fresh_hash"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# -- sign-ins --------------------------------------------------------------------------------

def start_sign_in(user: User) -> User:
    """A new sign-in for ``user`` (for :func:`flask_login.login_user`, which keeps
    ``user.get_id()`` in the cookies), and the password's hash made again at today's cost if
    :func:`authenticate` made it (unless the password changed meanwhile)."""
    fresh = db.session.info.pop(_FRESH_HASH, None)
    if fresh is not None and fresh[0] == user.id:
        db.session.execute(update(User).where(User.id == user.id,
                                              User.password_hash == fresh[1])
                           .values(password_hash=fresh[2]))
    key = secrets.token_urlsafe(24)
    db.session.add(SignIn(user_id=user.id, key_hash=_digest(key)))
    db.session.flush()
    user.sign_in_key = key
    return user


#: Asked on every signed-in request: the account's row, found through its sign-in's key
#: digest (or its token's), as plain statements built once.
_USER_COLUMNS = tuple(User.__table__.columns)
_USER_KEYS = tuple(c.key for c in _USER_COLUMNS)
_SIGNED_IN = (select(*_USER_COLUMNS).join(SignIn, SignIn.user_id == User.id)
              .where(SignIn.key_hash == bindparam("digest")))
_TOKEN_USER = (select(*_USER_COLUMNS, ApiToken.id.label("token_id"),
                      ApiToken.last_used_at.label("token_used_at"))
               .join(ApiToken, ApiToken.user_id == User.id)
               .where(ApiToken.token_hash == bindparam("digest")))


def _account(row: Any) -> User:
    """The account of a row of :data:`_USER_COLUMNS`, as the session's own object: the one
    it already holds, or one made from the row without asking the database again."""
    values = dict(zip(_USER_KEYS, row, strict=False))
    held = db.session.identity_map.get(identity_key(User, values["id"]))
    if held is not None:
        return held
    user = User(**values)
    make_transient_to_detached(user)  # loaded and clean, as if just read
    db.session.add(user)
    return user


def signed_in_user(cookie_id: str) -> User | None:
    """The account behind a cookie's ``"<user id>:<sign-in key>"``, while that sign-in
    lasts; None for an ended sign-in, or a cookie from before sign-ins were kept."""
    user_id, _, key = cookie_id.partition(":")
    if not key or not user_id.isdigit() or len(key) > 64:
        return None
    row = db.session.connection().execute(_SIGNED_IN, {"digest": _digest(key)}).first()
    if row is None or str(row.id) != user_id:
        return None
    user = _account(row)
    user.sign_in_key = key
    return user


def end_sign_in(user: User) -> None:
    """Sign this browser out: its cookies, copied or not, no longer open the account."""
    if user.sign_in_key:
        db.session.execute(delete(SignIn).where(SignIn.key_hash == _digest(user.sign_in_key)))
        db.session.flush()


def end_sign_ins(user: User, *, keep_this_one: bool = False) -> int:
    """Sign the account out everywhere (but here, with ``keep_this_one``); how many ended."""
    query = delete(SignIn).where(SignIn.user_id == user.id)
    if keep_this_one and user.sign_in_key:
        query = query.where(SignIn.key_hash != _digest(user.sign_in_key))
    ended = getattr(db.session.execute(query), "rowcount", 0)
    db.session.flush()
    return int(ended or 0)


def new_password(user: User, current: Any, new: Any) -> tuple[str, str]:
    """A password change checked, before any write boundary opens (argon2 twice: the
    current password, the new one's hash; the table's changes do not wait for them): the
    hash it replaces and the new one, for :func:`change_password`. Raises
    :class:`AccountError`, or :class:`ChecksBusy`."""
    if not isinstance(current, str) or len(current) > MAX_PASSWORD:
        raise AccountError(Message("password.not_current"), "current")
    with _checking():
        try:
            HASHER.verify(user.password_hash, current)
        except (VerificationError, InvalidHashError):
            raise AccountError(Message("password.not_current"), "current") from None
        return user.password_hash, HASHER.hash(check_password(new))


def change_password(user: User, change: tuple[str, str]) -> None:
    """Keep the new password :func:`new_password` checked, unless the password changed
    meanwhile (then the current one given is no longer current); every other sign-in
    ends."""
    was, new_hash = change
    kept = db.session.execute(
        update(User).where(User.id == user.id, User.password_hash == was)
        .values(password_hash=new_hash).execution_options(synchronize_session=False))
    if kept.rowcount != 1:  # type: ignore[attr-defined]
        raise AccountError(Message("password.not_current"), "current")
    user.password_hash = new_hash
    end_sign_ins(user, keep_this_one=True)


# -- password reset (no email: the server's keeper hands the link over) ----------------------

def _resets(secret_key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key, salt="tonk-password-reset")


def _seal(user: User) -> str:
    """Part of the link that changes with the password: a used link is spent."""
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:16]


def reset_token(user: User, secret_key: str) -> str:
    """A one-time token to set a new password, valid for an hour."""
    return str(_resets(secret_key).dumps({"u": user.id, "s": _seal(user)}))


def reset_user(token: str, secret_key: str) -> User:
    """The account a reset token is for, or :class:`AccountError` (expired, used, forged)."""
    try:
        data = _resets(secret_key).loads(token, max_age=RESET_SECONDS)
    except SignatureExpired:
        raise AccountError(Message("reset.expired"),
                           "token") from None
    except BadSignature:
        data = None
    user = db.session.get(User, data.get("u")) if isinstance(data, dict) and \
        isinstance(data.get("u"), int) else None
    if user is None or data.get("s") != _seal(user):
        raise AccountError(Message("reset.invalid"),
                           "token")
    return user


def reset_password(token: str, secret_key: str, new: Any) -> User:
    """Set the password of a reset link's account; the link is spent and every sign-in
    ends."""
    user = reset_user(token, secret_key)
    new_hash = HASHER.hash(check_password(new))
    # Spent in the database, at once: only the one change that still finds the password the
    # link was made for sets it (another server using the same link at the same moment
    # finds it changed, and the link used).
    spent = db.session.execute(
        update(User).where(User.id == user.id, User.password_hash == user.password_hash)
        .values(password_hash=new_hash).execution_options(synchronize_session=False))
    if spent.rowcount != 1:  # type: ignore[attr-defined]  # (it changed nothing)
        raise AccountError(Message("reset.invalid"), "token")
    user.password_hash = new_hash
    end_sign_ins(user)
    return user


# -- personal API tokens ---------------------------------------------------------------------


def create_token(user: User, label: Any) -> str:
    """A new personal API token for ``user``; returns the token, which is not stored."""
    label = clean_text(label, AccountError, "label", Message("token.what_name"), 80)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    db.session.add(ApiToken(user_id=user.id, label=label, token_hash=_digest(token)))
    db.session.flush()
    return token


def user_for_token(token: str, *, writing: bool = False) -> User | None:
    """The owner of a personal token, or None. ``writing``: the request is a write: the
    token is read before its change (:func:`~app.db.storage.read_before_write`: on SQLite
    without the write lock). When the token was last used is noted at most once a minute:
    this keeps the note for :func:`note_token_use`, which the request's write boundary
    runs (with the change, or on its own for a read)."""
    row = read_before_write(_TOKEN_USER, {"digest": _digest(token)}) if writing else \
        db.session.connection().execute(_TOKEN_USER, {"digest": _digest(token)}).first()
    if row is None:
        return None
    user, token_id, last = _account(row), row.token_id, row.token_used_at
    now = utcnow()
    if last is None or last < now - NOTE_USE:
        db.session.info[_TOKEN_NOTE] = (token_id, now)
    return user


#: In a session's info: a token's use to note, found by :func:`user_for_token`.
_TOKEN_NOTE = "tonk_token_note"


def token_use_due() -> bool:
    """Whether :func:`user_for_token` found the token's use to note."""
    return _TOKEN_NOTE in db.session.info


def note_token_use() -> None:
    """Note the token's use that :func:`user_for_token` found due (if it did), in the
    transaction under way."""
    note = db.session.info.pop(_TOKEN_NOTE, None)
    if note is not None:
        db.session.execute(update(ApiToken).where(ApiToken.id == note[0])
                           .values(last_used_at=note[1]))


def revoke_token(user: User, token_id: int) -> None:
    row = db.session.get(ApiToken, token_id)
    if row is None or row.user_id != user.id:
        raise AccountError(Message("token.unknown"), "token")
    db.session.delete(row)
    db.session.flush()


def tokens_of(user: User) -> list[ApiToken]:
    """The account's personal API tokens, newest first."""
    return list(db.session.scalars(select(ApiToken).where(ApiToken.user_id == user.id)
                                   .order_by(ApiToken.created_at.desc(), ApiToken.id.desc())))


def set_locale(user: User, locale: str | None) -> None:
    """Keep the account's language (None: the browser decides)."""
    db.session.execute(update(User).where(User.id == user.id).values(locale=locale))
    db.session.flush()
    user.locale = locale
