"""The catalogue: every message id of the core with its English template.

Placeholders are named (``{player}``) and filled in by :func:`app.core.messages.render`; a
translation gives the same placeholders in another order. Ids are grouped by what they are:
words (``end.*``, ``multiple.*``), a rule option's choices, preset titles and summaries,
rule texts (``rule.*``, the words each payment carries), explanation sentences
(``explain.*``) and error messages (the rest); what import, export, backup and restore say
about files is in :mod:`.catalogue_exchange`, where each rule is written (``source.*``) in
:mod:`.catalogue_sources`. A catch scheme's words (its title, summary, rule texts and
sentences of its own) are declared with it in :mod:`.catches`, and a rule option's (its
label and meaning) with it in :mod:`.rules`: they join :data:`CATALOGUE` when registered.
"""
from __future__ import annotations

from .catalogue_exchange import EXCHANGE
from .catalogue_sources import SOURCE_TEXTS

CATALOGUE: dict[str, str] = {
    **EXCHANGE,
    **SOURCE_TEXTS,
    # -- joining words -----------------------------------------------------------------------
    "list.one": "{item}",
    "list.separator": ", ",
    # -- words -------------------------------------------------------------------------------
    "cards.0": "no cards", "cards.1": "one card", "cards.2": "two cards",
    "cards.3": "three cards", "cards.4": "four cards", "cards.5": "five cards",
    "cards.6": "six cards", "cards.7": "seven cards", "cards.8": "eight cards",
    "cards.9": "nine cards", "cards.10": "ten cards", "cards.n": "{n} cards",
    "multiple.1": "single", "multiple.2": "double", "multiple.3": "triple",
    "multiple.4": "quadruple", "multiple.n": "{n}×",
    "end.deal": "instant win on the deal", "end.tonk_out": "tonk out",
    "end.run_out": "run out", "end.drop": "drop", "end.stock_out": "stock ran out",
    "end.dead": "dead hand",
    "end_hint.deal": "someone was dealt a winning hand; it is not played",
    "end_hint.tonk_out": "went out without a final discard",
    "end_hint.run_out": "a player discarded their last card",
    "end_hint.drop": "a player dropped to compare counts",
    "end_hint.stock_out": "the draw pile is empty: lowest count wins",
    "end_hint.dead": "thrown in or misdealt: nobody pays",
    "deal_win.five_face_cards": "five face cards",
    "deal_win.at_most": "{n} or fewer",
    # -- the choices of rule options ---------------------------------------------------------
    "scoring.money": "each hand is paid in money at the table's stake",
    "scoring.points": "whole points instead of money, the same payments; settle up at the end",
    "scoring.push_ups": "losers are pushed up by the points left in their hands; "
                        "lowest total is best",
    "deck.standard": "the standard 52-card deck",
    "deck.jokers": "52 cards and jokers that count 0",
    "deck.forty": "the forty-card deck, without 8s, 9s and 10s",
    "face_value.ten": "J, Q and K count 10",
    "face_value.rank": "J counts 11, Q 12, K 13; 49 and 50 are then no instant wins on the "
                       "deal (they would come too often)",
    "deal_conflict.draw": "several instant wins on the deal make a draw",
    "deal_conflict.best": "only the best instant win is paid",
    "deal_conflict.all_paid": "every instant win is paid",
    "deal_tie.draw": "equal best instant wins make a draw",
    "deal_tie.nearest_left": "equal best instant wins go to the one nearest the dealer's left",
    "stock_out_tie.all_paid": "tied lowest counts are all paid",
    "stock_out_tie.draw": "tied lowest counts make a draw",
    # (each option's label and meaning are declared with it, in app/core/rules.py)
    # (each catch scheme's words are declared with it, in app/core/catches.py)
    # -- presets -----------------------------------------------------------------------------
    "preset.pagat.title": "Standard (pagat.com)",
    "preset.pagat.source": "pagat.com, main rules",
    "preset.pagat.summary": "49 or 50 on the deal and a tonk out pay double; a caught dropper "
                            "pays double to each player at or below the dropper's count.",
    "preset.wikipedia.title": "Encyclopedia",
    "preset.wikipedia.source": "the encyclopedia article",
    "preset.wikipedia.summary": "Two jokers; no instant wins; a caught dropper pays everyone "
                                "lower; double-double pays four; a tied stock-out is a draw.",
    "preset.texas.title": "Texas Tonk",
    "preset.texas.source": "the encyclopedia article, Texas Tonk",
    "preset.texas.summary": "50 on the deal pays double and beats 49, which pays single; a "
                            "caught dropper pays the lowest double.",
    "preset.rushville.title": "Rushville, Indiana",
    "preset.rushville.source": "pagat.com, Rushville",
    "preset.rushville.summary": "Five face cards win on the deal; a rum pays double; a bumped "
                                "head pays double rum to each bumper; a tied stock-out is a draw.",
    "preset.chicago.title": "Chicago",
    "preset.chicago.source": "pagat.com, Chicago",
    "preset.chicago.summary": "Jokers; Big 50 and 13 or fewer pay double, 49 single; a tonk "
                              "out pays single, double with two spreads on the first turn; a "
                              "caught dropper pays each catcher double.",
    "preset.washington.title": "Washington State",
    "preset.washington.source": "pagat.com, Washington State",
    "preset.washington.summary": "Points; 49, 50 or 14 or fewer on the deal pay double, all "
                                 "of them; a caught dropper loses two points per player to "
                                 "the lowest.",
    "preset.dc.title": "Washington DC",
    "preset.dc.source": "pagat.com, Washington DC",
    "preset.dc.summary": "11 or fewer, 50 or 49 on the deal pay double; 11 or fewer beats 50 "
                         "beats 49.",
    "preset.newark.title": "Newark",
    "preset.newark.source": "pagat.com, Newark",
    "preset.newark.summary": "50, 49 or 13 or fewer on the deal pay double, ties to the "
                             "dealer's left; two spreads on the first turn pay four.",
    "preset.baton_rouge.title": "Baton Rouge",
    "preset.baton_rouge.source": "pagat.com, Baton Rouge",
    "preset.baton_rouge.summary": "Forty cards without 8s, 9s and 10s; 47 or 50 on the deal "
                                  "pays double.",
    "preset.seattle.title": "Seattle",
    "preset.seattle.source": "pagat.com, Seattle",
    "preset.seattle.summary": "Seven cards each.",
    "preset.push_ups.title": "Push-ups",
    "preset.push_ups.source": "pagat.com, push-ups",
    "preset.push_ups.summary": "Losers are pushed up by the points in their hands; lowest "
                               "total is best.",
    # -- rule texts (what each payment is for) ----------------------------------------------
    "rule.deal": "instant win on the deal: {what} pays {pays}",
    "rule.tonk_out": "tonk out pays {pays}",
    "rule.tonk_out.hits": "tonk out with a hit (not every card in new spreads) pays {pays}",
    "rule.tonk_out.first_turn": "two spreads on the first turn pay {pays}",
    "rule.tonk_out.double_double": "double-double pays {pays}",
    "rule.run_out": "run out pays {pays}",
    "rule.drop_won": "a won drop pays {pays}",
    "rule.stock_out": "stock out: the lowest count is paid {pays}",
    # -- how a rule that reads two ways is read (on the house-rule card) ---------------------
    "reading.push_ups_catch": "under push-ups nobody pays: whoever this rule pays wins the "
                              "hand, and every other player is pushed up by their count, once",
    "reading.tonk_out.hits": "one card hit onto a spread already on the table makes it a tonk "
                             "out with a hit; only a tonk out whose cards all went down in new "
                             "spreads of the player's own (pagat's second spread, the "
                             "encyclopedia's six cards spread) pays the full tonk out",
    # -- explanation sentences ---------------------------------------------------------------
    "explain.sentence": "{text}.",
    "explain.how.spread": "with a spread",
    "explain.how.hits": "with a hit",
    "explain.how.spread_first_turn": "with a spread on the first turn",
    "explain.how.hits_first_turn": "with a hit on the first turn",
    "explain.how.double_double": "with a double-double",
    "explain.tonk_out": "{player} tonked out {how}, without a final discard.",
    "explain.run_out": "{player} ran out, discarding the last card.",
    "explain.dead": "The hand is dead (thrown in, misdealt or void): nobody pays.",
    "explain.big_one": "The Big One: every amount is multiplied by {n}.",
    "explain.push_ups_none": "Push-ups: nobody is pushed up.",
    "explain.push_ups_one": "Push-ups: {winners} scores 0; the others are pushed up by their "
                            "count × {factor}: {pushed}.",
    "explain.push_ups_many": "Push-ups: {winners} score 0; the others are pushed up by their "
                             "count × {factor}: {pushed}.",
    "explain.amount.money": "{amount}",
    "explain.amount.points": "{amount} points",
    "explain.amount.point": "{amount} point",
    "explain.pays": "{payers} pays {payee} {amount} ({rule}).",
    "explain.each_pay": "{payers} each pay {payee} {amount} ({rule}).",
    "explain.pays_in_all": "{payer} pays {payee} {amount} in all: {parts}.",
    "explain.part": "{amount} ({rule})",
    "explain.net": "Net: {parts}.",
    "explain.net_part": "{player} {amount}",
    "explain.drop_won": "{dropper} dropped with {count}; the next lowest is {next} with "
                        "{next_count}, so {dropper} has the lowest count and wins.",
    "explain.holds": "{player} holds {count}",
    "explain.caught": "{dropper} dropped with {count}; {holds}, so {dropper} is caught.",
    "explain.caught_tie": "{dropper} dropped with {count}; {holds}: a tie goes against the "
                          "dropper, so {dropper} is caught.",
    "explain.caught_unpaid": "{players}: at or below {dropper}'s count too, but paid nothing "
                             "under this rule.",
    "explain.lowest": "{player} has the lowest count, {count}.",
    "explain.lowest_tie": "{players} tie for the lowest count, {count}.",
    "explain.catch_rule": "Catch rule ({title}): {summary}.",
    "explain.stock_out_dead": "The stock ran out; under these house rules that makes the hand "
                              "dead, and nobody pays.",
    "explain.stock_out_all_equal": "The stock ran out with every player on {count}: a draw, "
                                   "nobody pays.",
    "explain.stock_out_tie_draw": "The stock ran out; {players} tie for the lowest count, "
                                  "{count}: under these house rules that is a draw, and nobody "
                                  "pays.",
    "explain.stock_out": "The stock ran out; {player} holds the lowest count, {count}, and "
                         "wins.",
    "explain.stock_out_tie_paid": "The stock ran out; {players} tie for the lowest count, "
                                  "{count}: each of them is paid by every player not tied "
                                  "with them, and they do not pay each other.",
    "explain.dealt": "{player} was dealt {what} ({rule} pays {pays})",
    "explain.deal_win": "{player} wins on the deal; the hand is not played.",
    "explain.deal_conflict_draw": "Several players won on the deal: under these house rules "
                                  "that is a draw, and nobody pays.",
    "explain.deal_everyone": "Everyone won on the deal, so nobody pays.",
    "explain.deal_all_paid": "Under these house rules every instant win on the deal is paid.",
    "explain.deal_best_tie_draw": "Only the best instant win is paid, and the best are equal: "
                                  "under these house rules that is a draw, and nobody pays.",
    "explain.deal_best_tie_nearest": "Only the best instant win is paid; the best are equal, "
                                     "and {player}, nearest the dealer's left ({dealer} "
                                     "dealt), wins.",
    "explain.deal_best": "Only the best instant win is paid: {player}'s.",
    # -- comparing house rules ---------------------------------------------------------------
    "compare.own": "Your table's rules: {title}",
    "compare.own_changed": "Your table's rules: {title}, with {changed} changed",
    "compare.points_stake": "points scoring: a stake of 1 point",
    "compare.no_stake": "no stake at this table (push-ups): a stake of 1",
    "compare.pushed": "points each player is pushed up, not money",
    # -- errors: text, players, seats --------------------------------------------------------
    "text.empty": "{what} cannot be empty",
    "text.not_text": "{what} must be text, not {value}",
    "text.control": "{what} cannot contain control characters ({code})",
    "text.one_line": "{what} must be one line, without line breaks or tabs ({code})",
    "text.invisible": "{what} cannot contain invisible characters ({code})",
    "text.surrogate": "{what} cannot contain broken characters (a lone surrogate, {code})",
    "text.private_use": "{what} cannot contain private-use characters ({code})",
    "text.too_long": "{what} can be at most {limit} characters",
    "players.not_list": "players must be a list of names in seat order",
    "players.how_many": "Tonk needs {low} to {high} players, not {n}",
    "players.name": "player {n}'s name",
    "players.twice": "{player} sits at the table twice (as {first})",
    "seat.not_name": "{what} must be the name of a player, not {value}",
    "seat.not_at_table": "{what}: {player} is not at the table ({players})",
    # -- errors: the hand --------------------------------------------------------------------
    "hand.not_object": "a hand must be a JSON object",
    "hand.no_field": "a hand has no field {field}",
    "hand.rules_by_session": "rules are set by the session, not by each hand",
    "hand.players_by_session": "players are set by the session, not by each hand",
    "hand.stake_by_session": "the stake is set by the session",
    "hand.multiplier": "multiplier must be a whole number from 1 to {max}, not {value}",
    "stake.not_amount": 'the stake must be an amount like "0.25", not {value}',
    "stake.not_positive": "the stake must be more than zero, not {value}",
    "stake.too_large": "the stake can be at most 1,000,000",
    "stake.places": "the stake has at most two decimal places, not {value}",
    "stake.currency_whole": "the stake in {currency} is a whole amount ({currency} has no "
                            "smaller unit), not {value}",
    "stake.whole_points": "under points scoring the stake is a whole number of points, "
                          "not {value}",
    "end.not_object": 'end must say how the hand ended, like {{"kind": "drop", '
                      '"player": "Ann"}}',
    "end.unknown_kind": "end.kind must be one of {kinds}, not {value}",
    "end.no_field": "a {end} has no field {field}",
    "end.needs_dropper": "a {end} needs the player who dropped",
    "end.needs_winner": "a {end} needs the player who went out",
    "end.not_flag": "{key} must be true or false, not {value}",
    "end.method": 'method must be "spread" or "hits", not {value}',
    "end.no_double_double": "these house rules do not play double-doubles",
    "end.no_five_face_cards": "these house rules have no instant win for five face cards",
    "end.five_face_not_list": "five_face_cards must be a list of players",
    "counts.not_object": 'counts must map players to their points, like {{"Ann": 12}}',
    "counts.not_whole": "{player}'s count must be a whole number, not {value}",
    "counts.twice": "{player}'s count is given twice",
    "counts.negative": "{player}'s count cannot be negative ({count})",
    "counts.too_high": "{player}'s count of {count} is more than {cards} can hold "
                       "(at most {max})",
    "counts.impossible": "no {cards} of this deck add up to {count} ({player})",
    "counts.deal_too_low": "{player}'s initial total of {total} is below what {cards} can "
                           "make (at least {min})",
    "counts.winner_holds": "{player} went out, so holds no points, not {count}",
    "counts.five_face": "five face cards count {low}, not {count} ({player})",
    "counts.five_face_range": "with J, Q and K counting 11, 12 and 13, five face cards count "
                              "{low} to {high}, not {count} ({player})",
    "counts.every_count": "a {end} needs every player's count",
    "counts.every_loser": "under push-ups every loser's count is needed",
    "counts.missing": "{player}'s count is missing: {why}",
    "counts.deal_needs_total": "an instant win on the deal needs the initial total of the "
                               "player who claims it",
    "cards.not_object": 'cards must map players to their cards, like {{"Ann": ["KS", "10H"]}}',
    "cards.not_list": "{player}'s cards must be a list like [\"KS\", \"10H\"]",
    "cards.twice": "{player}'s cards are given twice",
    "cards.too_many": "{player} holds {n} cards, but a hand has at most {cards}",
    "cards.of_player": "{player}: {error}",
    "cards.deal_size": "{player}: a hand on the deal has {cards}, not {n}",
    "cards.not_five_face": "{player}'s cards are not five face cards",
    "cards.sum_differs": "{player}'s cards add up to {total}, not the {given} given",
    "card.not_text": 'a card is written like "KS" or "10H", not {value}',
    "card.unknown": '"{text}" is not a card: write the rank (A, 2–10, J, Q, K) then the suit '
                    '(S, H, D, C), like "KS" or "10H", or JOKER',
    "card.not_in_deck": "{card} is not in {deck}",
    "card.too_often": "{card} is given {times} times ({who}), but the deck holds it only once",
    "card.too_often_copies": "{card} is given {times} times ({who}), but the deck holds it "
                             "only {copies} times",
    "deal.no_instant_wins": "these house rules have no instant wins on the deal",
    "deal.win_pays": "{what} pays {pays}",
    "deal.these_cards": "these cards",
    "deal.no_claim": "nobody wins on the deal with {given} (these rules: {wins})",
    # -- errors: house rules -----------------------------------------------------------------
    "rules.not_whole": "{name} must be a whole number from {low} to {high}, not {value}",
    "rules.option_named": '"{label}"',
    "rules.out_of_range": "{name} must be from {low} to {high}, not {value}",
    "rules.jokers_without_deck": "{n} jokers need the deck with jokers: choose that deck, "
                                 "or leave the jokers at {usual}",
    "rules.not_a_choice": "{name} must be one of {choices}, not {value}",
    "rules.deal_wins_not_list": "deal_wins must be a list of instant-win rules",
    "rules.deal_wins_too_many": "deal_wins has at most {n} rules",
    "rules.deal_win_not_object": 'each deal win is an object like {{"totals": [49, 50], '
                                 '"pays": 2}}',
    "rules.deal_win_unknown": "a deal win has no option {option}",
    "rules.deal_win_kind": "a deal win names exactly one of totals, at_most or "
                           "five_face_cards",
    "rules.totals_not_list": "totals must be a non-empty list of whole numbers",
    "rules.totals_twice": "totals lists a number twice",
    "rules.five_face_not_true": "five_face_cards must be true",
    "rules.unknown_option": "there is no rule option called {name}",
    "rules.totals_impossible": "no {cards} of this deck add up to {totals}",
    "rules.unknown_preset": "there are no house rules called {name}; choose one of {presets}",
    "rules.not_rules": 'rules must be a preset name like "pagat" or an object of options',
    "rules.preset_not_name": "rules.preset must be the name of a preset",
    # -- errors: settle-up -------------------------------------------------------------------
    "balances.not_zero": "the balances do not add up to zero: they sum to {total}",
    "balances.not_object": 'balances must map each name to an amount, like '
                           '{{"Ann": "4.50", "Bob": "-4.50"}}',
    "balances.too_many": "a settle-up takes at most {n} people",
    "balances.name": "every balance's name",
    "balances.twice": "{name} has two balances (as {first} too)",
    "money.places": "{message}: at most {places} decimal places",
    "side_bet.high_card": "High-card side bet",
    "side_bet.naturals": "Naturals side bet",
    # a side bet's name inside a sentence ("the high-card side bet's winner …")
    "side_bet.high_card.name": "high-card",
    "side_bet.naturals.name": "naturals",
    "suit.S": "spades", "suit.H": "hearts", "suit.D": "diamonds", "suit.C": "clubs",
    "side_bets.scoring": "side bets are played for money or points, not under {scoring}",
    "side_bets.not_object": "side bets must be a JSON object, like "
                            '{{"high_card": {{"stake": "0.25"}}}}',
    "side_bets.not_list": "a hand's side bets must be a list, like "
                          '[{{"bet": "naturals", "winner": null}}]',
    "side_bets.unknown": "there is no side bet {bet}: the side bets are {bets}",
    "side_bets.option": "the {bet} side bet has no option {option}",
    "side_bets.stake": "a side bet's stake must be an amount more than zero, not {value}",
    "side_bets.stake_points": "under points scoring a side bet's stake is a whole number of "
                              "points, not {value}",
    "side_bets.currency_whole": "a side bet's stake in {currency} is a whole amount "
                                "({currency} has no smaller unit), not {value}",
    "side_bets.suit": "the suit must be S, H, D or C, not {value}",
    "side_bets.unclaimed": "an unclaimed high-card pot carries or returns, not {value}",
    "side_bets.not_enabled": "this table plays no {bet} side bet",
    "side_bets.twice": "the {bet} side bet is given twice",
    "side_bets.players": "the {bet} side bet's players must be players at the table, each "
                         "once",
    "side_bets.winner": "the {bet} side bet's winner, {player}, did not bet",
    "side_bets.fixed_suit": "this table's high-card suit is always {suit}: give no suit",
    "side_bets.no_suit": "the {bet} side bet has no suit",
    "seats.one_change": 'send one change of seats: {{"join": "Fay"}}, {{"join": "Fay", '
                        '"after": "Bob"}} or {{"leave": "Bob"}}',
    "seats.name": "the name of who joins or leaves",
    "seats.seated": "{player} is already at the table",
    "seats.seated_as": "{player} is already at the table, as {seat}",
    "seats.not_seated": "{player} is not at the table (at the table: {players})",
    "seats.full": "a table seats at most {max} players",
    "seats.too_few": "{player} cannot leave: a table needs at least {min} players",
    "explain.side_bet.in": "{bet}: {players} each put {stake} in the pot.",
    "explain.side_bet.in_suit": "{bet} in {suit}: {players} each put {stake} in the pot.",
    "explain.side_bet.won": "{player} wins the pot: {amount} ({carried} of it carried over "
                            "from earlier deals).",
    "explain.side_bet.won_fresh": "{player} wins the pot: {amount}.",
    "explain.side_bet.carried": "Nobody won it: the pot of {amount} carries to the next deal.",
    "explain.side_bet.returned": "Nobody held the suit: each stake goes back.",
    "explain.side_bet.left": "{player} left the table after this deal and takes back the "
                             "{amount} they had in the pot.",
    "version.order": "the first version is recorded, every later one corrected or voided, "
                     "not {action}",
    "version.void_twice": "the hand is already void: it cannot be voided again",
    "night.event": "a night has no event {kind}",
    "night.version": "hand {number} changed meanwhile (now version {version}): look at it "
                     "again first",
    "day.years": "{what} must be in the years {first} to {last}, not {day}",
    "day.missing": "say {what}, like 2026-01-31",
    "day.not_a_day": "{what} must be a date like 2026-01-31, not {value}",
    "balances.not_amount": "{name}'s balance must be an amount like \"4.50\", not {value}",
    "balances.not_mapping": "the balances must map each name to an amount",
    "balances.name_not_text": "every name must be text, not {value}",
    "balances.not_decimal": "{name}'s balance must be an exact decimal amount, not {value}",
    "balances.not_finite": "{name}'s balance is not an amount of money: {value}",
    "balances.places": "{name}'s balance {value} has {places} decimal places; at most {max} "
                       "are allowed",
    "balances.too_large": "{name}'s balance {value} is too large to be money",
    # -- errors of the stored sessions, leagues, accounts and the API --------------------------
    "account.email": "enter an email address like ann@example.com",
    "account.email_taken": "there is already an account with this email; sign in instead",
    "api.payment_amount": "the amount must be like \"4.50\", not {value}",
    "api.payment_field": "say {what}: {{\"from\": \"Bob\", \"to\": \"Ann\", \"amount\": "
                         "\"4.50\"}}",
    "api.rules_or_stake": "send the new house rules, the new stake or both: {{\"rules\": "
                          "\"pagat\", \"stake\": \"0.50\"}}",
    "api.unknown_field": "{what} has no field {field_name} (it takes {fields})",
    "api.no_fields": "{what} has no field {field_name} (it takes none: send {{}} or no body)",
    "change.no_reason": "say why: a correction or a void needs a reason",
    "change.of_hand": "hand {number}: {error}",
    "change.version": "the version must be a whole number, not {value}",
    "change.version_from_one": "versions are numbered from 1, not {value}",
    "hand.not_found": "there is no hand {number} in this session",
    "hand.limit": "this table has played every hand of its round (hands per round: {most}): "
                  "no more can be recorded, but its hands can still be corrected or voided",
    "hand.limit_restore": "hand {number} is void, and this table has played every hand of its "
                          "round without it (hands per round: {most}): it cannot count again",
    "league.already_admin": "{address} already runs this league",
    "league.member_twice": "{name} is already a member of this league",
    "league.season_twice": "the league has a season called {name} already",
    "league.no_account": "there is no account with the email {address}: they sign up first",
    "league.no_admin": "there is no admin {user_id} in this league",
    "league.no_member": "there is no member {player_id} in this league",
    "league.no_season": "there is no season {season_id} in this league",
    "league.not_yours": "there is no league {league_id} that you run",
    "league.owner_runs": "the league's owner always runs it",
    "league.season_order": "the season cannot end ({last}) before it starts ({first})",
    "league.what_name": "the league's name",
    "league.what_member": "the member's name",
    "league.what_season": "the season's name",
    "password.blank": "the password needs letters, digits or signs, not only spaces or "
                      "invisible characters",
    "password.common": "this password is one of the most common ones, the first an attacker "
                       "tries: choose another",
    "password.not_current": "that is not your current password",
    "password.too_long": "the password can be at most {n} characters",
    "password.too_short": "the password needs at least {n} characters",
    "payment.amount": "the amount must be more than zero, at most 1,000,000,000,000, with at "
                      "most two decimal places",
    "payment.not_amount": 'the amount must be like "4.50", not {value}',
    "payment.currency_whole": "the amount in {currency} is a whole amount ({currency} has no "
                              "smaller unit), not {value}",
    "payment.themselves": "{payer} cannot pay themselves",
    "payment.push_ups": "push-ups move no money: there is nothing to pay",
    "payment.more_than_planned": "that is more than is open from {payer} to {payee}: at most "
                                 "{most}",
    "payment.more_than_open": "that is more than is open between {payer} and {payee}: at most "
                              "{most}",
    "payment.no_reason": "say why: undoing a payment needs a reason",
    "payment.not_found": "there is no payment {payment_id} in this session",
    "payment.undone": "payment {payment_id} is already undone",
    "payment.not_at_table": "{who} is not at this table",
    "payment.owed_nothing": "{payee} is owed nothing",
    "payment.owes_nothing": "{payer} owes nothing",
    "payment.too_much": "that is more than is open: at most {most}",
    "pay.not_object": 'the payment handles are an object, like {"paypal": "annpays"}',
    "pay.unknown": "{field} is not a payment handle: write any of {fields}",
    "pay.not_text": "the {field} is text",
    "pay.paypal": "{value} is not a PayPal.me name: 1 to 20 letters or digits, like annpays",
    "pay.venmo": "{value} is not a Venmo name: 5 to 30 letters, digits, - or _, like "
                 "ann-pays",
    "pay.cashapp": "{value} is not a Cash App $cashtag: 1 to 20 letters or digits, at least "
                   "one letter, like $annpays",
    "pay.revolut": "{value} is not a Revolut.me name: 3 to 32 letters or digits, like annpays",
    "pay.iban": "{value} is not an IBAN: its check digits, length or country do not add up "
                "(ISO 13616); copy it from the bank card or app",
    "pay.bic": "{value} is not a BIC: 8 or 11 letters and digits, like COBADEFFXXX",
    "pay.bic_without_iban": "a BIC goes with an IBAN: write the IBAN too",
    "pay.note": "the note is at most {most} characters",
    "request_key.format": "the {field} must be 1 to {most} printable ASCII characters",
    "request_key.lost": "this request was carried out, but its answer was lost: look at the "
                        "session to see it",
    "request_key.reused": "this {field} was already used for another request: use a new key "
                          "for a new request",
    "reset.expired": "this link has expired (it lasts an hour): ask for a new one",
    "reset.invalid": "this link is not valid, or was used already: ask for a new one",
    "session.closed": "this session is closed: nothing in it can change any more",
    "session.carry_over": "carry_over is true or false",
    "session.not_settled_carry": "not everything is paid yet: mark the open transfers paid, or "
                                 "close and carry the debts over",
    "session.archived": "archived is true or false",
    "session.not_empty": "this session has hands or payments: it cannot be deleted, but it can "
                         "be archived",
    "debt.not_found": "there is no debt {debt_id} that you keep",
    "debt.paid": "this debt was already marked paid by {name}",
    "session.first_dealer": "the first dealer, {first_dealer}, is not at the table",
    "session.dealer_seat": "seat {seat} has no player: choose a seat that has one to deal "
                           "first",
    "session.not_settled": "not everything is paid yet: mark the open transfers paid first",
    "session.not_yours": "there is no session {session_id} in your account",
    "session.what_name": "the session's name",
    "session.what_reason": "the reason",
    "session.what_currency": "the currency (a short code or sign like USD, EUR or $)",
    "account.what_name": "your name",
    "token.what_name": "the token's name",
    "share.not_found": "this share link does not lead to a session",
    "standings.direction": "the direction is asc or desc, not {value}",
    "standings.scoring": "the scoring is one of {choices}, not {value}",
    "standings.sort": "sort by one of {choices}, not {value}",
    "standings.stat": "the number is one of {choices}, not {value}",
    "token.unknown": "no such token",
    # -- tournaments: the event service --------------------------------------------------------
    "event.whole.rounds": "the rounds are a whole number from {low} to {high}, not {value}",
    "event.whole.hands_per_round": "the hands a round are a whole number from {low} to {high}, "
                                   "not {value}",
    "event.not_yours": "there is no event {event_id} that you run",
    "event.what_name": "the event's name",
    "event.what_day": "the event's date",
    "event.what_player": "the player's name",
    "event.scoring": "the scoring is points or money, not {value}",
    "event.board_unknown": "this leaderboard link does not lead to an event",
    "event.no_player": "{player} is not checked in to this event",
    "event.paid": "paid is true or false",
    "event.checked_in": "{player} is already checked in",
    "event.withdrawn": "{player} has already withdrawn",
    "event.no_round": "this event has no round {number}",
    "event.no_table": "this round has no table {table}",
    "event.seed": "the seed is a whole number from 0 to {most}, not {value}",
    "event.round_open": "round {number} is still being played: close it before the next draw",
    "event.all_drawn": "all {rounds} rounds of this event have been drawn",
    "event.no_draw_left": "every round of this event is drawn ({rounds}): a player checked "
                          "in now would play no hand",
    "event.setting_drawn": "the first round is drawn and the tables play under this "
                           "setting: it stays as it is",
    "event.drawn_stays": "the first round of this event is drawn: its tables are sessions "
                         "with their own hands, so the event can no longer be deleted",
    "event.final": "every round of this event is played and closed: its results are final "
                   "(only its name and date may still change)",
    "event.fewer_rounds": "{rounds} rounds are drawn already: the event has at least {rounds}",
    "event.force": "force is true or false",
    "event.unpaid": "the entry fee is not marked paid for {players}: draw them anyway, or "
                    "leave them out of this round",
    "event.unpaid_choice": "unpaid is draw or leave_out, not {value}",
    "event.round_closed": "round {number} is already closed",
    "event.short_table": "table {table} has not played all its hands ({hands} a round): let it "
                         "finish, or close the round anyway",
    "event.short_tables": "tables {tables} have not played all their hands ({hands} a round): "
                          "let them finish, or close the round anyway",
    "event.link_unknown": "this scorekeeping link does not lead to a table: ask the director "
                          "for the table's new link",
    "event.link_closed": "round {number} is closed: this table's scorekeeping link no longer "
                         "records",
    # -- tournaments: the draw, standings and prizes -----------------------------------------
    "draw.table_size": "the table size is a whole number from {least} to {most}, not {value}",
    "draw.too_few": "a table needs at least {least} players, not {count}",
    "draw.too_many": "{count} players are more than one event seats (at most {most})",
    "draw.uneven": "{count} players cannot all sit at tables of {size}: one would be alone",
    "draw.twice": "a player is named twice",
    "draw.standing": "the standing must name every player of the draw once",
    "tie_break.best_round": "best single round",
    "tie_break.fewest_caught": "fewest hands caught",
    "tie_break.most_won": "most hands won",
    "tie_break.fewest_hands": "fewest hands played",
    "tie_break.list": "the tie-breaks are a list of names from {choices}",
    "tie_break.unknown": "the tie-break is one of {choices}, not {value}",
    "tie_break.twice": "a tie-break is named twice",
    "prizes.not_amount": "{value} is not an amount (write it like \"20\" or \"0.5\")",
    "prizes.range.entry_fee": "the entry fee is an amount from 0 to {most}, not {value}",
    "prizes.range.prize": "a prize is an amount from 0 to {most}, not {value}",
    "prizes.places": "{value} has more than {places} decimal places for this currency",
    "prizes.house_share": "the house share is from 0 up to 1 (0.1 is a tenth), not {value}",
    "prizes.shape": "the prizes are a list of shares such as [\"0.5\", \"0.3\", \"0.2\"] "
                    "or {{\"fixed\": [\"100\", \"60\"]}}",
    "prizes.share": "a share is more than 0 and at most 1, not {value}",
    "prizes.shares_sum": "the shares must add up to 1, not {total}",
    "prizes.over_pool": "the fixed prizes add up to {total}, more than the pool of {pool}",
    "prizes.rule": "The house share is rounded down to the smallest unit of the currency. "
                   "Each place gets its share rounded down (players tied, the shares of the "
                   "places they cover added first); what that leaves, and the prizes of "
                   "places nobody reached, go to first place. Tied players share the prizes "
                   "of the places they cover equally; a remainder too small to divide goes "
                   "one unit each to them in the order of their names.",
}
