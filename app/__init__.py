"""Tonk Tally: the table's trusted scorekeeper for Tonk played for money.

:func:`create_app` is the application factory; ``app.core`` is the pure domain core.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask

HERE = os.path.dirname(os.path.abspath(__file__))


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``config`` overrides the configuration (``SQLALCHEMY_DATABASE_URI``,
    ``TESTING``, ``SECRET_KEY``, …), as in the Flask tutorial. (Flask and the database are
    imported here, not when the package is: ``tonk settle`` needs only the core.)"""
    from flask import Flask

    from . import config as _config
    from .db import storage, unit
    from .extensions import babel, csrf, db, login_manager, migrate
    from .http import assets, compress, limits
    from .http import headers as security

    app = Flask(__name__, instance_relative_config=True,
                instance_path=str(_config.instance_folder()),
                static_folder=os.path.join(HERE, "static"))
    app.json.sort_keys = False  # type: ignore[attr-defined]  # keep the documented order
    _config.private_folder(app.instance_path)
    app.config.update(_config.defaults(app.instance_path))
    if config:
        app.config.update(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _config.secret_key(app.instance_path)
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS",
                          storage.engine_options(app.config["SQLALCHEMY_DATABASE_URI"]))

    compress.init_app(app)  # first: it compresses what every other after_request leaves
    security.init_app(app)
    assets.init_app(app)
    db.init_app(app)
    with app.app_context():
        storage.configure(db.engine)
    storage.read_requests(app)
    unit.guard(app)
    migrate.init_app(app, db, directory=str(_config.resource_folder("migrations")),
                     render_as_batch=True, compare_type=True)
    csrf.init_app(app)
    login_manager.init_app(app)
    limits.init_app(app)
    from .core import set_translator
    from .web.shared.phrases import PhrasedTemplate
    from .web.shared.site import catalogue_translator, reader_locale, select_locale

    app.jinja_env.template_class = PhrasedTemplate  # Japanese lines break between phrases

    babel.init_app(app, locale_selector=select_locale)
    # the core's sentences (and the numbers in them) in the reader's language
    set_translator(catalogue_translator, reader_locale)

    from .api import bp as api_bp
    from .db import models  # noqa: F401  (the tables, for the database and migrations)

    app.register_blueprint(api_bp)
    csrf.exempt(api_bp)

    from . import web

    web.init_app(app)  # the pages, area by area, with their templates

    from .errors import register as register_errors

    register_errors(app)
    from .api.share import UnchangedPolls

    app.wsgi_app = UnchangedPolls(app, app.wsgi_app)  # type: ignore[method-assign]
    return app
