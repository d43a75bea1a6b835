"""The catalogue's messages about files: what an import finds wrong with a document
(``import.*``, the parts it names ``import.what.*`` and ``import.where.*``), what reading
one finds (``read.*``), and why a backup or a restore is refused (``backup.*``,
``restore.*``), and what the server refuses of a night a phone sends as its events
(``sync.*``). Part of :data:`app.core.catalogue.CATALOGUE`, kept apart by what it is
about, extracted for translation the same way (``babel.cfg``).
"""
from __future__ import annotations

EXCHANGE: dict[str, str] = {
    # -- the parts of a document an import names -----------------------------------------------
    "import.at": "{where}: {problem}",
    "import.where.session": "session {name} ({uid})",
    "import.where.session_at": "session #{index}",
    "import.where.no_uid": "no uid",
    "import.where.hand_at": "{where}, hand #{index} of the list",
    "import.where.hand": "{where}, hand {number}",
    "import.where.version": "{where}, version {number}",
    "import.what.of": "{owner}'s {field}",
    "import.what.the_league": "the league",
    "import.what.season": "season {season}",
    "import.what.season_name": "season {number}'s name",
    "import.what.member": "member {number}",
    "import.what.member_name": "member {number}'s name",
    "import.what.a_session": "a session",
    "import.what.payment": "payment {number}",
    "import.what.rules_change": "rules change {number}",
    "import.what.seat_change": "seat change {number}",
    "import.what.carried_debt": "carried debt {number}",
    "import.what.hand_number": "the hand's number",
    "import.what.by": "who made the version",
    "import.what.left": "when {player} left",
    # -- values of a document --------------------------------------------------------------------
    "import.time": "{what} must be a time like \"2025-01-31T20:15:00+00:00\", not {value}",
    "import.day": "{what} must be a day like \"2025-01-31\", not {value}",
    "import.uid": "{what} needs a uid of 1 to 32 letters, digits, - or _ (it keeps a second "
                  "import from adding it twice), not {value}",
    "import.whole": "{what} must be a whole number from {low}, not {value}",
    "import.list": "{what} must be a list",
    "import.text": "{what} must be some text (at most 500 characters)",
    # -- the document and its league -------------------------------------------------------------
    "import.no_format": "this is not a Tonk Tally export: it does not say \"format\": "
                        "\"{format}\"",
    "import.other_format": "this is not a Tonk Tally export: it does not say \"format\": "
                           "\"{format}\" (it says {value})",
    "import.version": "this export is version {version} of the format; this app reads "
                      "versions {first} to {last}",
    "import.no_version": "the file does not say which version of the format it is",
    "import.not_export": "the file has no format and version: this is not a Tonk Tally export",
    "import.no_sessions": "the file has no list of sessions (\"sessions\": […])",
    "import.of_league": "league {league}: {problem}",
    "import.league_object": "the league must be a JSON object, or null",
    "import.season_object": "season {number} must be a JSON object",
    "import.season_order": "season {season} ends before it starts",
    "import.member_twice": "{name} is a member twice",
    "import.league_taken": "a league with this uid is already here, run by another account: "
                           "only its owner or an admin can import into it",
    "import.uid_twice": "{where}: this uid appears twice in the file",
    "import.already_there": "{where}: already there",
    "import.refused": "the database refused the import (was the same file being imported at "
                      "the same moment?); nothing was imported",
    # -- a session -------------------------------------------------------------------------------
    "import.session_object": "a session must be a JSON object",
    "import.seated": "seated must list at least two of the session's players, each once, in "
                     "seat order",
    "import.left": "left must give when each player who is not seated left",
    "import.hand_gap": "hand numbers run 1, 2, 3… without gaps, but hand {number} is missing",
    "import.payment_object": "payment {number} must be a JSON object",
    "import.of_payment": "payment {number}: {problem}",
    "import.rules_change_object": "rules change {number} must be a JSON object",
    "import.seat_change_object": "seat change {number} must be a JSON object",
    "import.seat_change": "seat change {number}: kind must be joined or left, and player (and "
                          "a joiner's after) one of the session's players",
    "import.totals": "totals must give every player's total",
    "import.total_amount": "{name}'s total must be an amount like \"4.50\"",
    "import.totals_differ": "the totals do not match the hands: {name}'s total is {total} by "
                            "the hands, not {given}",
    "import.money": "money must give every player's hands, side_bets, pots_back and total",
    "import.money_amount": "{name}'s {part} in money must be an amount like \"4.50\"",
    "import.money_differ": "the money does not match the hands: {name}'s {part} is {amount} "
                           "by the hands, not {given}",
    "import.next_dealer": "the next dealer, {player}, is not at the table",
    "import.not_paid": "the session is closed, but its payments and carried debts do not "
                       "settle the totals (still open: {still_open})",
    "import.carried_debts": "carried_debts must be a list",
    "import.debt_object": "carried debt {number} must be a JSON object",
    "import.debt_players": "carried debt {number}: from and to must be two players at this "
                           "table",
    "import.payment_transfer": "payment {number}: its transfer names no planned transfer "
                               "from its payer to its payee",
    "import.plans": "plans must be a list of plans, each a list of transfers",
    "import.plan_transfer": "plan {number}: a transfer is from one player at this table to "
                            "another",
    # -- a hand and its versions -----------------------------------------------------------------
    "import.hand_object": "a hand must be a JSON object",
    "import.hand_twice": "there are two hands numbered {number}",
    "import.no_versions": "a hand needs its list of versions, the first one recorded",
    "import.version_object": "a version must be a JSON object",
    "import.version_gap": "the versions must run 1, 2, 3… without gaps, but version {number} "
                          "is {value}",
    "import.recorded_reason": "a recorded hand has no reason; only corrections and voids do",
    "import.void_keeps": "a void keeps the hand and its result as they were",
    "import.voided": "it says voided is {value}, but its last version is {action}",
    "import.hand_json": "the hand must be a JSON object (docs/rules.md §1)",
    "import.hand_fields": "the hand must give its {fields}, as stored",
    "import.hand_players": "the hand's players ({players}) are not the session's ({names})",
    "import.correction_table": "a correction keeps the house rules and stake the hand was "
                               "first settled under",
    "import.stake_number": "the stake must be a number, not {value}",
    "import.stake_scoring": "a hand's stake under {scoring} scoring cannot be {value}",
    "import.result_json": "the result must be a JSON object (docs/rules.md §8)",
    "import.explanation": "the result's explanation must be a list of sentences",
    "import.result_field": "the stored result has a field {field} that this hand's result "
                           "has not",
    "import.result.outcome": "the stored result does not match the hand: it says the outcome "
                             "is {given}, but the hand is {outcome}",
    "import.result.winners": "the stored result does not match the hand: it says the winners "
                             "are {given}, but they are {winners}",
    "import.result.no_winners": "the stored result does not match the hand: it says the "
                                "winners are {given}, but they are nobody",
    "import.result.net": "the stored result does not match the hand: {player} gets {value} "
                         "by the hand, not {stored}",
    "import.result.pushed": "the stored result does not match the hand: {player} is pushed up "
                            "{value} by the hand, not {stored}",
    "import.result.players": "the stored result does not match the hand: it names players who "
                             "are not at the table",
    "import.result.payments": "the stored result does not match the hand: its payments are "
                              "not the ones the hand makes",
    # -- reading a file --------------------------------------------------------------------------
    "read.where": "line {line} (character {character})",
    "read.not_utf8": "the file is not UTF-8 text",
    "read.empty": "the file is empty",
    "read.not_object": "this is not a Tonk Tally export: it should be a JSON object that "
                       "starts with {{\"format\": \"tonk-tally\", …",
    "read.cut": "the file ends too soon, at {where}: it is cut off (truncated)",
    "read.not_json": "the file is not valid JSON at {where}: {error}",
    "read.expected": "the file is not valid JSON at {where}: expected {what}",
    "read.expect.field_name": "a field name in quotes",
    "read.expect.colon": "':' after a field name",
    "read.expect.after_session": "',' or ']' after a session",
    "read.expect.after_field": "',' or '}}' after a field",
    "read.key_twice": "the file gives a key twice near {where}: {key}",
    "read.unknown_field": "the file has a field {key} at {where} that an export does not have "
                          "(it has format, version, league and sessions)",
    "read.given_twice": "the file gives a key twice near {where}: {path} is given twice",
    "read.too_deep": "the file is nested too deeply to be an export",
    "read.long_number": "the file has a number too long to be read near {where}",
    "read.more": "there is more after the end of the document, at {where}",
    # -- backup and restore ----------------------------------------------------------------------
    "backup.no_tables": "the database has no tables yet: there is nothing to back up",
    "backup.not_sqlite": "a copy of the file is for a SQLite database; use a .gz backup",
    "restore.not_backup": "this is not a Tonk Tally backup",
    "restore.unreadable": "this is not a readable Tonk Tally backup ({error})",
    "restore.version": "this backup is format version {version}; this app reads version "
                       "{reads}",
    "restore.schema": "this backup was made at schema {made}, this database is at {here}: "
                      "restore it with the version of the app that made it, then upgrade",
    "restore.not_empty": "this database is not empty ({table} has rows): restore into an "
                         "empty database",
    "restore.line": "line {number} of the backup is not JSON: the file is damaged",
    "restore.key_twice": "line {number} of the backup gives {key} twice: the file was changed "
                         "after it was made, or is damaged",
    "restore.long_line": "line {number} of the backup is longer than {mib} MiB: the file is "
                         "damaged",
    "restore.nested": "line {number} of the backup holds more than {limit} lists and objects: "
                      "the file is damaged",
    "restore.too_big": "the backup unpacks to more than {mib} MiB, more than this app "
                       "restores",
    "restore.unknown_table": "the backup has a table {table} this app does not know",
    "restore.columns": "the backup's {table} has other columns than this app's",
    "restore.row_fit": "a row of the backup does not fit its table: the file is damaged",
    "restore.damaged": "the backup is damaged",
    "restore.cut": "the backup ends too early: the file was cut short",
    "restore.no_digest": "the backup carries no digest of its tables: the file was changed "
                         "after it was made",
    "restore.table_twice": "the backup gives table {table} twice: the file is damaged",
    "restore.rows": "the backup says {said} rows but holds {rows}: the file is damaged",
    "restore.where": "table {table}, row {row}",
    "restore.where_id": "table {table}, row {row} (id {id})",
    "restore.value": "{where}: its {column} {value} is {unfit}",
    "restore.unfit.missing": "missing, where a value must be",
    "restore.unfit.time": "not a time",
    "restore.unfit.day": "not a day",
    "restore.unfit.bool": "not true or false",
    "restore.unfit.number": "not a number",
    "restore.unfit.whole": "not a whole number the column can hold",
    "restore.unfit.text": "not text",
    "restore.unfit.long": "longer than its {length} characters",
    "restore.refused_row": "{where}: the database refused it ({reason})",
    "restore.refused": "refused",
    "restore.table_changed": "table {table} is not as the backup was made",
    "restore.unchecked": "tonk check could not read what was restored ({error})",
    "restore.refusal": "nothing was restored: {problem}; {why}",
    "restore.why.changed": "the file was changed after it was made (table {table} does not "
                           "match its digest)",
    "restore.why.inconsistent": "the file is as it was made (its digest matches): the "
                                "database it was made from was already inconsistent; run tonk "
                                "check there",
    # -- a night sent from a phone as its events -------------------------------------------------
    "sync.uid": "a night's uid is 1 to 32 letters, digits, - or _, not {value}",
    "sync.events": 'send the night\'s events in order: {{"events": [{{"id": "e1", "seq": 1, '
                   '"kind": "started", …}}, …]}}, at most {most} at a time',
    "sync.event": "event #{index} of the list is not an object with its id, seq and kind",
    "sync.event_id": "an event's id is 1 to 64 letters, digits, - or _, not {value}",
    "sync.seq": "an event's seq is its place in the night, a whole number from 1, not {value}",
    "sync.unknown_field": "a {kind} event has no field {field_name} (it takes {fields})",
    "sync.order": "event {event} is number {seq}, but the one before it in the list is number "
                  "{before}: send the events in their order",
    "sync.twice": "event {event} is in the list twice",
    "sync.missing": "event {event} is number {seq} of the night, but the server holds {held}: "
                    "send the events from number {next} on",
    "sync.other": "number {seq} of this night is another event already ({taken}): the server "
                  "holds {held}, send from number {next} on",
    "sync.changed": "event {event} was sent before with other contents: an id names one event",
    "sync.first": "a night begins with its started event, number 1, and has one",
    "sync.not_yours": "there is no night {uid} in your account",
    "sync.share_token": "a night's share token is 22 to 43 letters, digits, - or _ (made on "
                        "the phone from 16 or more random bytes), not {value}",
    "sync.share_token_taken": "this share token is another session's already: the night "
                              "cannot take it",
    "sync.not_a_night": "session {uid} was not started on a phone: change it through "
                        "/api/v1/sessions",
}
