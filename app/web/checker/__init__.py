"""The pages for anyone, no account needed: the dispute checker ``/check``
(:mod:`.dispute`) and the house-rule card of any rule set ``/rules/<preset>``
(:mod:`.rule_cards`). Nothing is stored. Their endpoints are ``web.<view>``."""
from pathlib import Path

from . import dispute as dispute
from . import rule_cards as rule_cards

TEMPLATES = Path(__file__).parent / "templates"
