"""Sign up, sign in, sign out (here or everywhere), the account page with its personal API
tokens and password change, and the password-reset page of a ``tonk user reset-password``
link."""
from __future__ import annotations

from flask import current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user, login_user, logout_user
from flask_wtf import FlaskForm

from ...core.errors import TonkError
from ...db.unit import unit_of_work, writes
from ...http.language import LANG_COOKIE
from ...http.limits import checks_busy, limited
from ...services.accounts import (
    AccountError,
    ChecksBusy,
    authenticate,
    change_password,
    create_token,
    create_user,
    end_sign_in,
    end_sign_ins,
    new_password,
    reset_password,
    reset_user,
    revoke_token,
    set_locale,
    sign_up_problems,
    start_sign_in,
    tokens_of,
)
from ..shared.site import attempt, login_required, me, on_this_site
from . import bp
from .forms import PasswordForm, ResetForm, SignInForm, SignUpForm, TokenForm


def safe_next(target: str | None) -> str:
    """Where to go after signing in: a path on this site, never another site."""
    return on_this_site(target) or url_for("web.index")


def show_error(form: FlaskForm, exc: TonkError, default: str) -> None:
    """An account error beside the field it names."""
    field = form[exc.field] if exc.field and exc.field in form else form[default]
    field.errors = [*field.errors, exc.message]


def _signs_up(form: SignUpForm) -> bool:
    """Whether the sign-up form is one the account can be made of: every field's problem
    shown beside it at once (the form's own, then the account's rules)."""
    form.validate()
    for problem in sign_up_problems(form.email.data, form.name.data, form.password.data):
        if problem.field and not form[problem.field].errors:
            show_error(form, problem, "email")
    return not form.errors


@bp.route("/signup", methods=["GET", "POST"])
@writes
@limited("SIGNUP")
def signup() -> ResponseReturnValue:
    if current_user.is_authenticated:
        return redirect(url_for("web.index"))
    form = SignUpForm()
    if form.is_submitted() and _signs_up(form):
        user, exc = attempt(lambda: create_user(form.email.data, form.name.data,
                                                form.password.data))
        if exc is not None:
            show_error(form, exc, "email")
        else:
            assert user is not None
            chosen = request.cookies.get(LANG_COOKIE)
            if chosen in current_app.config["LANGUAGES"]:
                set_locale(user, chosen)  # the language chosen before signing up stays
            login_user(start_sign_in(user), remember=True)
            flash(_("Welcome, %(name)s. Start your first session below.", name=user.name), "ok")
            return redirect(url_for("web.index"))
    return render_template("auth/signup.html", form=form), 422 if form.errors else 200


@bp.route("/signin", methods=["GET", "POST"])
@limited("SIGNIN")
def signin() -> ResponseReturnValue:
    """The password is checked before any write boundary opens (argon2 takes a tenth of a
    second or more, and thirty wrong passwords at once held the table's hands for seconds
    on SQLite); a right one's sign-in is a short write of its own. A worker checks a few
    passwords at once (one), no more: the threads that answer the table stay free."""
    if current_user.is_authenticated:
        return redirect(safe_next(request.args.get("next")))
    form = SignInForm()
    if form.validate_on_submit():
        try:
            user = authenticate(form.email.data, form.password.data)
        except ChecksBusy:
            return checks_busy()
        if user is not None:
            with unit_of_work():
                signed = start_sign_in(user)
            login_user(signed, remember=bool(form.remember.data))
            return redirect(safe_next(request.args.get("next")))
        form.password.errors = [_("That email and password do not match an account.")]
    return render_template("auth/signin.html", form=form), 422 if form.errors else 200


@bp.post("/signout")
@writes
def signout() -> ResponseReturnValue:
    if current_user.is_authenticated:
        end_sign_in(me())  # a copy of this browser's cookies opens nothing now
    logout_user()
    flash(_("You are signed out."), "ok")
    return redirect(url_for("web.index"))


@bp.post("/account/signout-everywhere")
@writes
@login_required
def signout_everywhere() -> ResponseReturnValue:
    end_sign_ins(me())
    logout_user()
    flash(_("You are signed out on every phone and computer."), "ok")
    return redirect(url_for("auth.signin"))


@bp.route("/account/password", methods=["GET", "POST"])
@login_required
@limited("PASSWORD")
def password() -> ResponseReturnValue:
    """Both passwords are checked (argon2, twice) before the write boundary opens, as a
    sign-in's; the change is a short write of its own."""
    form = PasswordForm()
    if form.validate_on_submit():
        try:
            checked, exc = attempt(lambda: new_password(me(), form.current.data,
                                                        form.password.data))
        except ChecksBusy:
            return checks_busy()
        if checked is not None:
            with unit_of_work():
                _done, exc = attempt(lambda: change_password(me(), checked))
        if exc is not None:
            show_error(form, exc, "password")
        else:
            flash(_("Your password is changed; every other phone and computer is signed "
                    "out."), "ok")
            return redirect(url_for("auth.account"))
    return (render_template("auth/password.html", form=form), 422 if form.errors else 200,
            {"Cache-Control": "no-store"})


@bp.route("/reset/<token>", methods=["GET", "POST"])
@writes
@limited("RESET")
def reset(token: str) -> ResponseReturnValue:
    """The page of a one-time reset link: choose a new password."""
    secret = current_app.config["SECRET_KEY"]
    try:
        user = reset_user(token, secret)
    except AccountError as bad_link:
        return render_template("auth/reset.html", form=None, problem=bad_link.message), 404
    form = ResetForm()
    if form.validate_on_submit():
        _done, exc = attempt(lambda: reset_password(token, secret, form.password.data))
        if exc is not None:
            show_error(form, exc, "password")
        else:
            logout_user()
            flash(_("Your new password is set; every phone and computer is signed out. "
                    "Sign in with it."), "ok")
            return redirect(url_for("auth.signin"))
    page = render_template("auth/reset.html", form=form, user=user, problem=None)
    # The link is a credential: no cache keeps the page, no Referer carries it away.
    return page, 422 if form.errors else 200, {"Cache-Control": "no-store",
                                                "Referrer-Policy": "no-referrer"}


def account_page(form: TokenForm, new_token: str | None = None) -> ResponseReturnValue:
    page = render_template("auth/account.html", form=form, tokens=tokens_of(me()),
                           new_token=new_token)
    # The new token is shown once: no cache may keep the page that holds it.
    return page, 422 if form.errors else 200, {"Cache-Control": "no-store"}


@bp.get("/account")
@login_required
def account() -> ResponseReturnValue:
    return account_page(TokenForm(formdata=None))


@bp.post("/account/tokens")
@writes
@login_required
@limited("TOKEN")
def new_token() -> ResponseReturnValue:
    form = TokenForm()
    if form.validate_on_submit():
        token, exc = attempt(lambda: create_token(me(), form.label.data))
        if exc is not None:
            show_error(form, exc, "label")
        else:
            return account_page(TokenForm(formdata=None), token)
    return account_page(form)


@bp.post("/account/tokens/<int:token_id>/revoke")
@writes
@login_required
def revoke(token_id: int) -> ResponseReturnValue:
    revoke_token(me(), token_id)  # refused: said on the page it came from
    flash(_("The token is revoked: it no longer opens the API."), "ok")
    return redirect(url_for("auth.account"))
