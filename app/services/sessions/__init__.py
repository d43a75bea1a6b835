"""The night's money, module by job. Pages, API and CLI call these modules' public
functions; every change of a session's money runs under the session's lock
(:func:`.ledger.locked`).

- :mod:`.ledger`: start a session, record, correct and void hands, change the house rules,
  payments and closing; totals and the settle-up state (:func:`.ledger.ledger_of`); who
  keeps a session's score and who runs a league (:func:`.ledger.keeps_score`,
  :func:`.ledger.is_league_admin`).
- :mod:`.entries`: a hand's effect on what is stored beside it (running totals, entries,
  player records).
- :mod:`.seats`: players joining and leaving (a seat is never removed).
- :mod:`.pots`: side bets stored and their pots replayed in order.
- :mod:`.settleup`: the kept settle-up plan, payments along it and their undo.
- :mod:`.debts`: what is carried over at closing, until marked paid.
- :mod:`.archive`: archiving and deleting sessions.
- :mod:`.live`: a session's state by its share link from one row, for the live view.

Their errors, and the HTTP status of each, are in :mod:`app.services.errors`.
"""
