#!/usr/bin/env bash
# The user's guide's pictures (docs/img/), made again: runs the browser tests whose
# screenshots the guide shows (they save full pages in test-artifacts/screenshots/), then
# crops each picture to a phone's screen and writes it as a small JPEG (scripts/screenshots.py).
# Needs .venv with the test tools and Chromium, as scripts/test.sh makes them. Two minutes or so.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/pytest -q -p no:randomly -p no:cacheprovider \
  "tests/browser/test_night.py::test_a_whole_night[pagat-0.25]" \
  tests/browser/test_seats.py::test_players_join_and_leave_and_side_bets_fill_and_empty_their_pots \
  tests/browser/test_settle_up.py::test_partial_payment_undo_and_carry_over_on_a_phone \
  tests/browser/test_rules_and_pay.py::test_a_rule_card_read_signed_out_in_german \
  tests/browser/test_rules_and_pay.py::test_a_settle_up_with_a_paypal_link_and_a_girocode \
  tests/browser/test_rules_and_pay.py::test_the_share_text_of_a_night \
  tests/browser/test_rules_and_pay.py::test_a_leagues_standings_on_paper \
  tests/browser/test_offline.py::test_three_hands_recorded_offline_are_sent_once_in_order \
  tests/browser/test_tournament.py::test_tournament_day \
  tests/browser/test_check.py::test_check_a_disputed_hand_on_a_phone
.venv/bin/python scripts/screenshots.py
