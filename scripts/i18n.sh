#!/usr/bin/env bash
# The catalogue workflow in one command: extract every string of app/ and its templates (and
# the core's message catalogue, with its ids as contexts) into translations/messages.pot,
# update the German and Japanese catalogues from it, and compile them (.mo, committed).
# Then `.venv/bin/pytest tests/test_i18n.py` lists every message still without a
# translation. Run from the repository's folder: bash scripts/i18n.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL=${PYBABEL:-.venv/bin/pybabel}
"$PYBABEL" -q extract -F babel.cfg -k _l -k lazy_ngettext:1,2 -k pgettext:1c,2 \
    --no-location --sort-output --project "Tonk Tally" --copyright-holder "Tonk Tally" \
    --omit-header -o translations/messages.pot .
for lang in de ja; do
    po=translations/$lang/LC_MESSAGES/messages.po
    if [ -f "$po" ]; then
        "$PYBABEL" -q update -i translations/messages.pot -d translations -l "$lang" \
            --no-fuzzy-matching --ignore-obsolete --width 100 >/dev/null
    else
        "$PYBABEL" -q init -i translations/messages.pot -d translations -l "$lang" >/dev/null
    fi
    # A fixed creation date: a run that changes no message changes no file.
    sed -i 's/^"POT-Creation-Date: .*/"POT-Creation-Date: 2026-11-23 00:00+0000\\n"/' "$po"
done
"$PYBABEL" compile -d translations --statistics
