"""The account forms. What makes an email, a name or a password acceptable is decided by
:mod:`app.services.accounts`; its errors are shown beside the field they name."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, PasswordField, StringField
from wtforms.validators import InputRequired


class SignUpForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    name = StringField(_l("Your name"), validators=[InputRequired()])
    email = EmailField(_l("Email"), validators=[InputRequired()])
    password = PasswordField(_l("Password (at least 10 characters)"),
                             validators=[InputRequired()])


class SignInForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    email = EmailField(_l("Email"), validators=[InputRequired()])
    password = PasswordField(_l("Password"), validators=[InputRequired()])
    remember = BooleanField(_l("Keep me signed in on this phone"), default=True)


class TokenForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    label = StringField(_l("What the token is for"), validators=[InputRequired()])


class PasswordForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    current = PasswordField(_l("Current password"), validators=[InputRequired()])
    password = PasswordField(_l("New password (at least 10 characters)"),
                             validators=[InputRequired()])


class ResetForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    password = PasswordField(_l("New password (at least 10 characters)"),
                             validators=[InputRequired()])
