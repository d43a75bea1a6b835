"""What ``tonk serve`` says at start about the app's files: whether others on the machine
can read them (the database and its password hashes, the key that signs sign-ins). The
app makes them its user's alone (:data:`app.config.PRIVATE_FILE`); older ones, or a folder
made by hand, may not be."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import exposed
from ..i18n import gettext as _

if TYPE_CHECKING:
    from flask import Flask


def files_warning(app: Flask) -> str | None:
    """One line naming the app's folder and files others can read, and the fix; None when
    they are its user's alone."""
    found = exposed(app.instance_path, app.config["SQLALCHEMY_DATABASE_URI"])
    if not found:
        return None
    return _("Warning: others on this machine can read %(files)s (password hashes, the key "
             "that signs sign-ins): make the folder 700 and its files 600 (chmod).",
             files=", ".join(found))
