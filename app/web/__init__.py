"""The pages, by area (as indico keeps its ``modules/<area>/``): each area a package with its
views, forms, presenters and templates (``<area>/templates/<name>/…``), over the services'
packages, and what they share in :mod:`.shared`:

    sessions     a night: hands, chart, rules, seats, settle-up, share view, paper, phone
    leagues      a league's standings, players, sessions and settings
    tournaments  an event: the director's pages, a table's link, the standings
    checker      /check and the house-rule cards, for anyone
    accounts     sign up, sign in, the account page and its API tokens
    exchange     export and import

An area takes another's names only from its package (``from ..sessions import hand_page``),
never from one of its modules (tests/test_layers.py). Each endpoint keeps the name it had
when the pages were one folder: ``web.<view>`` for the sessions', tournaments' and checker's
pages (one blueprint, :data:`.shared.bp`), ``leagues.``, ``auth.``, ``exchange.``."""
from __future__ import annotations

from typing import TYPE_CHECKING

from jinja2 import FileSystemLoader

from ..extensions import login_manager
from . import accounts, checker, exchange, leagues, sessions, shared, tournaments

if TYPE_CHECKING:
    from flask import Flask

#: The areas, each with its templates folder: a template's name is the same in all of them.
AREAS = (shared, sessions, leagues, tournaments, checker, accounts, exchange)


def init_app(app: Flask) -> None:
    """Registers the pages' blueprints, the sign-in's hooks and every area's templates."""
    app.jinja_loader = FileSystemLoader([str(area.TEMPLATES) for area in AREAS])
    login_manager.login_view = "auth.signin"
    login_manager.user_loader(accounts.load_user)
    login_manager.unauthorized_handler(accounts.unauthorized)
    for blueprint in (accounts.bp, shared.bp, leagues.bp, exchange.bp):
        app.register_blueprint(blueprint)
