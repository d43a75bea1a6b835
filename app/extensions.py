"""The Flask extensions, created once here and bound to an app in :func:`app.create_app`."""
from __future__ import annotations

from flask_babel import Babel
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_sqlalchemy.session import Session as _FlaskSession
from flask_wtf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Base class of every model."""


#: In a session's info while its commits are held (:func:`app.db.storage.one_commit`): a
#: ``commit()`` then only flushes, and notes here that a change waits for the one commit.
HELD_COMMITS, CHANGE_WAITING = "tonk_held_commits", "tonk_change_waiting"


class Session(_FlaskSession):
    """The app's database session: Flask-SQLAlchemy's, whose ``commit()`` only flushes
    while the request holds its commits, so that a write request commits once: its change
    with the key that guards it and the answer kept for a retry."""

    def commit(self) -> None:
        if self.info.get(HELD_COMMITS):
            self.flush()
            self.info[CHANGE_WAITING] = True
            return
        super().commit()


db = SQLAlchemy(model_class=Base, session_options={"class_": Session})
migrate = Migrate()
csrf = CSRFProtect()
login_manager = LoginManager()
babel = Babel()
