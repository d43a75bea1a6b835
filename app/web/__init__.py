"""The scorekeeper's pages: sessions, recording and correcting hands, the chart, settle-up,
house rules, and the read-only share view."""
from flask import Blueprint

from .site import FILTERS, template_context

bp = Blueprint("web", __name__)
bp.app_context_processor(template_context)
for _name, _filter in FILTERS.items():
    bp.add_app_template_filter(_filter, _name)

from . import routes as routes  # noqa: E402  (registers the views on bp)
