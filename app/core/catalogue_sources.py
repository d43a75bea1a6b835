"""The catalogue's messages about the source texts: their titles, how a place in them is
named (``source.where*``) and what each rule the app pays by says, in the app's own words
(``source.<id>``, one for each entry of :data:`app.core.sources.SOURCES`). Part of
:data:`app.core.catalogue.CATALOGUE`, kept apart by what it is about, extracted for
translation the same way (``babel.cfg``).
"""
from __future__ import annotations

SOURCE_TEXTS: dict[str, str] = {
    "source.text.pagat": "pagat.com rules",
    "source.text.encyclopedia": "encyclopedia article",
    # the headings the rules stand under, as the texts write them (the German and Japanese
    # pagat texts, shared/seeds, give theirs)
    "source.section.deal": "The Deal",
    "source.section.end": "End of the play - payments",
    "source.section.variations": "Variations",
    "source.section.alternatives": "Variations: five alternative ways of paying",
    "source.section.dc": "Variations: Washington DC",
    "source.section.newark": "Variations: Newark",
    "source.section.baton_rouge": "Variations: Baton Rouge",
    "source.section.rushville": "Variations: Rushville, Indiana",
    "source.section.chicago": "Variations: Chicago",
    "source.section.washington": "Variations: Washington State",
    "source.section.play": "Play",
    "source.section.double_double": "Tonking out (Doubles)",
    "source.section.low_count": "High count or Low count",
    "source.section.texas": "Texas Tonk",
    "source.where": "{text}, “{section}”",
    "source.where_numbered": "{text}, “{section}”, rule {number}",
    "source.pagat.deal": "Dealt 49 or 50: shown at once, the hand is not played and each "
                         "other player pays double; two such hands make a draw.",
    "source.pagat.tonk_out": "Going out with no final discard (a second spread, or hitting) "
                             "is a tonk: each other player pays double.",
    "source.pagat.run_out": "Discarding your last card wins the basic stake from each other "
                            "player.",
    "source.pagat.drop_won": "A dropper who holds the lowest count is paid the basic stake by "
                             "each other player.",
    "source.pagat.caught": "A dropper who is not lowest pays double to each player at or "
                           "below the dropper's count, and the lowest also collects the basic "
                           "stake from everyone else; tied lowest are both paid.",
    "source.pagat.stock_out": "When the stock runs out, the lowest count is paid the basic "
                              "stake by each other player.",
    "source.pagat.hits": "Some tables pay only a single stake for going out by hitting "
                         "spreads.",
    "source.pagat.single_tonk": "Some tables pay only a single stake for getting rid of all "
                                "your cards, even with a second spread.",
    "source.pagat.fifty_double": "Some tables pay double for 50 on the deal and single for "
                                 "49; with both dealt, only 50 is paid.",
    "source.pagat.low_deal": "Some tables let a very low initial hand win on the deal (15 or "
                             "fewer for double, or 9 or fewer).",
    "source.pagat.dead_stock": "Some tables make the hand dead, with no payments, when the "
                               "stock runs out.",
    "source.pagat.rushville.7": "Rushville: a tie when the deck is exhausted pays nothing; "
                                "the hand is dead.",
    "source.pagat.alt1": "The lowest collects double from the dropper and the basic stake "
                         "from everyone else; the dropper pays only the lowest.",
    "source.pagat.alt2": "The dropper alone pays the lowest everyone's stake.",
    "source.pagat.alt3": "The dropper pays the basic stake to each player at or below the "
                         "dropper's count, and the lowest collects a basic stake from each "
                         "other player.",
    "source.pagat.alt4": "The dropper pays double to every other player.",
    "source.pagat.alt5": "The dropper pays five stakes to the lowest and nobody else; of two "
                         "tied lowest, the one nearest the dealer's left is paid.",
    "source.pagat.dc": "Washington DC: 49, 50 or 11 or fewer win on the deal; of several, the "
                       "best is paid: 11 or fewer beats 50, which beats 49.",
    "source.pagat.newark": "Newark: 50, 49 or 13 or fewer win double on the deal, in that "
                           "order, the lowest of the low; a tie goes to the player nearest "
                           "the dealer's left. Two spreads of your own on your first turn "
                           "pay four.",
    "source.pagat.baton_rouge": "Baton Rouge: forty cards without 8s, 9s and 10s; only 47 or "
                                "50 win on the deal.",
    "source.pagat.rushville.2": "Rushville: five face cards on the deal win at once (tens do "
                                "not count as face cards here).",
    "source.pagat.rushville.4": "Rushville: a rum, getting rid of every card, pays twice the "
                                "basic stake (a dime against a nickel).",
    "source.pagat.rushville.5": "Rushville: a bumped head pays double rum to each player who "
                                "bumped it, and nobody else pays or is paid.",
    "source.pagat.chicago.2": "Chicago: a “Big 50” on the deal wins double; two of them "
                              "usually make a dead hand, though some pay the one earliest "
                              "from the dealer.",
    "source.pagat.chicago.3": "Chicago: of the initial hands of 13 or fewer, the lowest wins "
                              "double; a tie pays nothing.",
    "source.pagat.chicago.4": "Chicago: 49 dealt claims a single win.",
    "source.pagat.chicago.6": "Chicago: a dropper who gets caught pays a double stake to the "
                              "player with an equal or lower count.",
    "source.pagat.chicago.7": "Chicago: two spreads on your first turn pay double; a later "
                              "double spread pays only single.",
    "source.pagat.washington.2": "Washington State: 50, 49 or 14 or fewer on the deal is a "
                                 "double tonk, two points from each opponent; all such hands "
                                 "are paid.",
    "source.pagat.washington.4": "Washington State: a caught dropper loses two points for "
                                 "each player in the game to the lowest; the others neither "
                                 "win nor lose.",
    "source.encyclopedia.play": "Encyclopedia: a caught dropper pays the stake to each player "
                                "with fewer points, double to a winner tied with the dropper, "
                                "and each player pays the winner the stake; a tied stock-out "
                                "is a draw.",
    "source.encyclopedia.double_double": "Encyclopedia: a tonk out on a run that lets the "
                                         "next player tonk out on it too is a double-double.",
    "source.encyclopedia.low_count": "Encyclopedia: some tables pay double for 13 or under "
                                     "on the deal, triple for 9 or under.",
    "source.encyclopedia.texas": "Encyclopedia, Texas Tonk: 50 dealt pays double, 49 dealt "
                                 "single; a dropper beaten by a lower hand pays that hand "
                                 "double.",
}
