"""Worked hands: the files of ``tests/data``, a hand of every kind of end under every
preset (as docs/rules.md §1 writes it and as the /check form sends it), and the hands the
API tests send, each with the outcome and net it must give."""
from __future__ import annotations

import json
import pathlib
from decimal import Decimal
from typing import Any

from app.core import PRESETS

DATA = pathlib.Path(__file__).parent / "data"


def load_json(name: str) -> Any:
    return json.loads((DATA / name).read_text(), parse_float=Decimal)


# -- hands of every kind under every preset ---------------------------------------------------

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
COUNTS = {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}
#: An instant win on the deal each preset pays (Ann claims); the encyclopedia has none.
DEAL_CLAIM = {"pagat": 49, "wikipedia": 49, "texas": 50, "rushville": 50, "chicago": 50,
              "washington": 49, "dc": 50, "newark": 49, "baton_rouge": 47, "seattle": 49,
              "push_ups": 49}

END_KINDS = ("deal", "tonk_out", "run_out", "drop", "stock_out", "dead")


def hand_json(preset: str, kind: str) -> dict[str, Any]:
    """A hand that ends with ``kind`` under ``preset``, as docs/rules.md §1 writes it."""
    stake = "1" if PRESETS[preset].rules.scoring == "points" else "0.25"
    end: dict[str, Any] = {"kind": kind}
    counts = dict(COUNTS)
    if kind in ("tonk_out", "run_out", "drop"):
        end["player"] = "Bob"
    if kind in ("tonk_out", "run_out"):
        counts["Bob"] = 0
    if kind == "deal":
        counts = {"Ann": DEAL_CLAIM[preset], "Bob": 20, "Cy": 25, "Dee": 30}
        if preset == "rushville":
            end["five_face_cards"] = ["Ann"]
    if kind == "dead":
        counts = {}
    return {"rules": preset, "stake": stake, "players": PLAYERS, "dealer": "Dee", "end": end,
            **({"counts": counts} if counts else {})}


def hand_form(preset: str, kind: str) -> dict[str, Any]:
    """The same hand as the /check form sends it."""
    data = hand_json(preset, kind)
    form = {"players": ", ".join(PLAYERS), "stake": data["stake"], "preset": preset,
            "step": "check", "kind": kind, "dealer": "Dee",
            "player": data["end"].get("player", "")}
    for seat, name in enumerate(PLAYERS):
        if name in data.get("counts", {}):
            form[f"count-{seat}"] = str(data["counts"][name])
    if data["end"].get("five_face_cards"):
        form["five_face"] = "Ann"
    return form


# -- hands sent to the API -------------------------------------------------------------------

DROP_CAUGHT: dict[str, Any] = {"end": {"kind": "drop", "player": "Bob"},
                               "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


#: (hand, outcome, Ann's net): pagat at 0.25, Dee deals first
EVERY_END: list[tuple[dict[str, Any], str, str]] = [
    ({"end": {"kind": "deal"}, "counts": {"Ann": 50}}, "deal_win", "1.50"),
    ({"end": {"kind": "tonk_out", "player": "Bob"}}, "tonk_out", "-0.50"),
    ({"end": {"kind": "run_out", "player": "Cy"}}, "run_out", "-0.25"),
    ({"end": {"kind": "drop", "player": "Bob"},
      "counts": {"Ann": 12, "Bob": 5, "Cy": 9, "Dee": 30}}, "drop_won", "-0.25"),
    (DROP_CAUGHT, "caught", "-0.25"),
    ({"end": {"kind": "stock_out"}, "counts": {"Ann": 3, "Bob": 10, "Cy": 20, "Dee": 7}},
     "stock_out", "0.75"),
    ({"end": {"kind": "dead"}, "multiplier": 2}, "dead", "0.00"),
]
