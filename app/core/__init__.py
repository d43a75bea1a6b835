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
from .explain import explain
from .hand import End, PlayedHand, parse_hand
from .messages import Message, render, set_translator
from .rules import OPTIONS, PRESETS, DealWin, Preset, Rules, find_preset, resolve_rules
from .settle import Payment, Result, settle

__all__ = [
    "OPTIONS", "PRESETS", "Card", "CardError", "DealWin", "End", "HandError", "Message",
    "Payment", "PlayedHand", "Preset", "Result", "Rules", "RulesError", "TonkError",
    "UnknownOptionError", "UnknownPresetError", "explain", "find_preset", "parse_card",
    "parse_hand", "render", "resolve_rules", "set_translator", "settle",
]
