"""The JSON API of docs/api.md under ``/api/v1``."""
from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")

from . import events as events  # noqa: E402
from . import leagues as leagues  # noqa: E402
from . import nights as nights  # noqa: E402  (a night sent from a phone)
from . import pay as pay  # noqa: E402  (payment handles)
from . import routes as routes  # noqa: E402
from . import sessions as sessions  # noqa: E402
from . import share as share  # noqa: E402
from . import stream as stream  # noqa: E402
