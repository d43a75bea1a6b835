"""What the areas' pages share: the ``web`` blueprint, on which the sessions', tournaments'
and checker's pages hang (their endpoints are ``web.<view>``), with the language switcher and
the context, filters and globals every template sees; and the helpers of every page, each a
module of this package: the page's site (:mod:`.site`: who is signed in, refusals as flashes),
forms (:mod:`.forms`), one-time form tokens (:mod:`.form_tokens`), links and QR codes
(:mod:`.links`), the kept pages (:mod:`.pagecache`), what a domain error's page is
(:mod:`.refusals`), how numbers and hands are shown (:mod:`.present`), the paged lists
(:mod:`.queries`), the chart (:mod:`.chart`), side bets (:mod:`.sidebets`) and Japanese line
breaks (:mod:`.phrases`). It imports no area: the areas build on it."""
from pathlib import Path

from flask import Blueprint

from .site import FILTERS, template_context

#: The base page, the macros and the pages of no area (not found, unavailable, too many).
TEMPLATES = Path(__file__).parent / "templates"

bp = Blueprint("web", __name__)

bp.app_context_processor(template_context)
for _name, _filter in FILTERS.items():
    bp.add_app_template_filter(_filter, _name)

from .form_tokens import once_token  # noqa: E402

bp.add_app_template_global(once_token, "once_token")  # macros see globals, not the context

from .present import hand_count  # noqa: E402
from .sidebets import side_bet_choices  # noqa: E402

bp.add_app_template_global(hand_count, "hand_count")

bp.add_app_template_global(side_bet_choices, "side_bet_choices")

from . import language as language  # noqa: E402  (the language switcher, /language)
