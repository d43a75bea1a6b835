"""The scorekeeper's pages: sessions, recording and correcting hands, the chart, settle-up,
house rules, the read-only share view, and the dispute checker for anyone."""
from flask import Blueprint

from .site import FILTERS, template_context

bp = Blueprint("web", __name__)


bp.app_context_processor(template_context)
for _name, _filter in FILTERS.items():
    bp.add_app_template_filter(_filter, _name)

from .form_tokens import once_token  # noqa: E402

bp.add_app_template_global(once_token, "once_token")  # macros see globals, not the context

from .sidebets import side_bet_choices  # noqa: E402

bp.add_app_template_global(side_bet_choices, "side_bet_choices")

from . import directing as directing  # noqa: E402  (tournaments: the director's pages)
from . import dispute as dispute  # noqa: E402  (the dispute checker, /check)
from . import events as events  # noqa: E402  (tournaments: the tables' links)
from . import language as language  # noqa: E402  (the language switcher, /language)
from . import nights as nights  # noqa: E402  (a night started on the phone, sent later)
from . import offline as offline  # noqa: E402  (the app on the phone: manifest, worker)
from . import paper as paper  # noqa: E402  (the night on paper)
from . import pay as pay  # noqa: E402  (pay links and handles)
from . import phone_core as phone_core  # noqa: E402  (the core on the phone)
from . import routes as routes  # noqa: E402  (registers the views on bp)
from . import rule_cards as rule_cards  # noqa: E402  (house-rule cards, /rules/<preset>)
from . import seats as seats  # noqa: E402  (joining and leaving the table)
from . import settling as settling  # noqa: E402  (settle-up, closing, archive)
from . import standing as standing  # noqa: E402  (tournaments: the board, each player)
