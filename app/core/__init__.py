"""The domain core of Tonk Tally: cards, house rules, hands, settlement and settle-up.

Pure Python: nothing here imports Flask or SQLAlchemy, and its tests need no app.
"""
from .cards import Card, parse_card
from .errors import (
    CardError,
    HandError,
    RulesError,
    TonkError,
    UnknownOptionError,
    UnknownPresetError,
)
from .hand import End, Hand, parse_hand
from .rules import OPTIONS, PRESETS, DealWin, Preset, Rules, find_preset, resolve_rules
from .settle import Payment, Result, explain, settle

__all__ = [
    "OPTIONS", "PRESETS", "Card", "CardError", "DealWin", "End", "Hand", "HandError",
    "Payment", "Preset", "Result", "Rules", "RulesError", "TonkError", "UnknownOptionError",
    "UnknownPresetError", "explain", "find_preset", "parse_card", "parse_hand",
    "resolve_rules", "settle",
]
