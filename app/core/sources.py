"""Where each rule comes from: which source text makes it (the pagat.com rules or the
encyclopedia article), its section and rule number, and a link to the public page, with
what the text says summed up in the app's own words (the catalogue's ``source.*``; nothing
is copied from the texts).

:func:`source_of` answers for one payment's rule key under a rule set, so a dispute can be
settled by reading the text the table trusts. A catch scheme names its own source
(:class:`~app.core.catches.CatchScheme`), and a preset the paragraphs of its own that
replace the general ones (:attr:`~app.core.rules.Preset.sources`).
"""
from __future__ import annotations

from dataclasses import dataclass

from .catches import find_catch
from .hand import deal_claims
from .messages import Message, Named
from .rules import PRESETS, DealWin, Rules
from .settle import Result

PAGAT_URL = "https://www.pagat.com/rummy/tonk.html"
ENCYCLOPEDIA_URL = "https://en.wikipedia.org/wiki/Tonk_(card_game)"
TEXTS = {"pagat": PAGAT_URL, "encyclopedia": ENCYCLOPEDIA_URL}


@dataclass(frozen=True, slots=True)
class Source:
    """One rule of a source text: ``text`` is ``pagat`` or ``encyclopedia``; ``section`` the
    heading it stands under (its key: :attr:`heading` is its words, the text's own heading in
    the reader's language, as the German and Japanese pagat texts write it); ``number`` its
    number in a numbered list (None when the text does not number it)."""

    id: str
    text: str
    section: str
    number: int | None = None

    @property
    def url(self) -> str:
        return TEXTS[self.text]

    title = Named("source.text.{0.text}")
    heading = Named("source.section.{0.section}")
    #: What the rule says, in the app's own words.
    summary = Named("source.{0.id}")

    @property
    def where(self) -> Message:
        """"pagat.com, End of the play – payments, rule 3"."""
        if self.number is None:
            return Message("source.where", text=self.title, section=self.heading)
        return Message("source.where_numbered", text=self.title, section=self.heading,
                       number=self.number)


#: Every rule the app pays by, with where it is written.
SOURCES: dict[str, Source] = {s.id: s for s in (
    Source("pagat.deal", "pagat", "deal"),
    *(Source(f"pagat.{end}", "pagat", "end", n) for end, n in (
        ("tonk_out", 1), ("run_out", 2), ("drop_won", 3), ("caught", 3), ("stock_out", 4))),
    *(Source(f"pagat.{rule}", "pagat", "variations") for rule in (
        "hits", "single_tonk", "fifty_double", "low_deal", "dead_stock")),
    *(Source(f"pagat.alt{n}", "pagat", "alternatives", n) for n in range(1, 6)),
    *(Source(f"pagat.{place}", "pagat", place) for place in ("dc", "newark", "baton_rouge")),
    *(Source(f"pagat.{place}.{n}", "pagat", place, n) for place, numbers in (
        ("rushville", (2, 4, 5, 7)), ("chicago", (2, 3, 4, 6, 7)), ("washington", (2, 4)))
      for n in numbers),
    *(Source(f"encyclopedia.{section}", "encyclopedia", section) for section in (
        "play", "double_double", "low_count", "texas")),
)}

def source_of(rules: Rules, key: str) -> Source:
    """The source of the rule a payment was made by (its key: ``tonk_out``, ``deal.0``,
    ``catch.alt3.dropper`` …) under ``rules``."""
    if key.startswith("deal."):
        return SOURCES[_deal_source(rules, rules.deal_wins[int(key[5:])])]
    own = PRESETS[rules.preset].sources
    if key.startswith("catch."):
        scheme = find_catch(key.split(".")[1])
        return SOURCES[own.get(f"catch.{scheme.name}") or scheme.source_id(rules)]
    if key == "tonk_out":
        if rules.tonk_out_pays != 1:
            return SOURCES["pagat.tonk_out"]
        return SOURCES[own.get("tonk_out.single", "pagat.single_tonk")]
    if key == "tonk_out.first_turn":
        return SOURCES["pagat.newark" if rules.first_turn_spread_pays == 4 else
                       "pagat.chicago.7"]
    if key == "run_out":
        return SOURCES["pagat.rushville.4" if rules.run_out_pays == 2 else "pagat.run_out"]
    return SOURCES[{"tonk_out.hits": "pagat.hits",
                    "tonk_out.double_double": "encyclopedia.double_double",
                    "drop_won": "pagat.drop_won", "stock_out": "pagat.stock_out"}[key]]


def ruling_sources(result: Result) -> list[Source]:
    """The sources behind a ruling, each once: those of its payments or, when nobody pays
    (a draw, a dead stock), the rule that says so."""
    hand, rules = result.hand, result.hand.rules
    keys = [p.key for p in result.payments]
    if not keys and hand.end.kind == "deal":
        keys = [f"deal.{index}" for _seat, index, _rank in deal_claims(hand)]
    found = [source_of(rules, key) for key in keys]
    if not keys and hand.end.kind == "stock_out":
        found = [SOURCES["pagat.dead_stock" if result.outcome == "dead" else
                         PRESETS[rules.preset].sources.get("stock_out.draw",
                                                           "encyclopedia.play")]]
    return list({s.id: s for s in found}.values())


def _deal_source(rules: Rules, win: DealWin) -> str:
    if win.five_face_cards:
        return "pagat.rushville.2"
    own = PRESETS[rules.preset].sources
    kind = "deal.at_most" if win.at_most is not None else "deal.49" if 49 in win.totals else ""
    if kind in own or "deal" in own:
        return own.get(kind) or own["deal"]
    if win.at_most is not None:
        return "encyclopedia.low_count" if win.at_most == 13 else "pagat.low_deal"
    return "pagat.deal" if set(win.totals) == {49, 50} else "pagat.fifty_double"
