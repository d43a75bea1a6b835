"""The user's guide's pictures (docs/img/) from the browser tests' screenshots: each a
phone-sized part of one full-page PNG of test-artifacts/screenshots/, cropped and written as
a JPEG by Chromium itself (no image library needed). Run by scripts/screenshots.sh after the
tests that take them.

    .venv/bin/python scripts/screenshots.py
"""
from __future__ import annotations

import base64
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-artifacts" / "screenshots"
IMG = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"
WIDTH = 390
QUALITY = 70

#: docs/img/<name>.jpg: the screenshot, the bands of it kept, top to bottom, each (its first
#: CSS pixel, how many; the page's head and then what the task is about), and the scale.
Bands = tuple[tuple[int, int], ...]
HEAD = (0, 52)
NIGHT = "test_a_whole_night-pagat-0.25-"
SEATS = "test_players_join_and_leave_and_side_bets_fill_and_empty_their_pots-"
PICTURES: dict[str, tuple[str, Bands, float]] = {
    "night": (NIGHT + "05-session-after-ten-hands", (HEAD, (405, 435), (1060, 450)), 1),
    "new-session": (NIGHT + "03-new-session", (HEAD, (400, 520), (1030, 425)), 1),
    "record-hand": (NIGHT + "04-record-hand-3", (HEAD, (400, 550), (955, 575)), 1),
    "hand": (NIGHT + "06-corrected-hand", (HEAD, (400, 345), (2465, 530)), 1),
    "seats": (SEATS + "02-join", (HEAD, (480, 42), (600, 400)), 1),
    "side-bets": (SEATS + "03-record-hand-with-side-bets", (HEAD, (395, 75), (1185, 680)), 1),
    "settle-up": ("test_partial_payment_undo_and_carry_over_on_a_phone-02-partial-payment",
                  (HEAD, (395, 605), (1000, 480)), 1),
    "pay": ("test_a_settle_up_with_a_paypal_link_and_a_girocode-settle-up-pay-links",
            (HEAD, (770, 450)), 1),
    "offline": ("test_three_hands_recorded_offline_are_sent_once_in_order-03-three-not-sent",
                ((0, 270), (780, 220), (1000, 400)), 1),
    "player": ("test_partial_payment_undo_and_carry_over_on_a_phone-06-debt-on-the-players-page",
               (HEAD, (400, 520)), 1),
    "league": ("league-standings-A4-1", ((20, 290),), 1),
    "tournament": ("test_tournament_day-05-results", (HEAD, (450, 550), (1000, 420)), 1),
    "board": ("test_tournament_day-06-tv", ((0, 800),), 0.5),
    "tournament-unpaid": ("test_tournament_day-01b-unpaid-fee", (HEAD, (1850, 420)), 1),
    "table-links": ("test_tournament_day-02-round-1-drawn", (HEAD, (398, 430)), 1),
    "table-after-round": ("test_tournament_day-03b-table-after-round", ((0, 860),), 1),
    "check": ("test_check_a_disputed_hand_on_a_phone-03-ruling", ((0, 662), (2170, 442)), 1),
    "rules-card": ("test_a_rule_card_read_signed_out_in_german-card-de", ((0, 845),), 1),
    "share-result": ("share-the-result-totals", ((0, 672),), 390 / 1080),
}


def main() -> int:
    missing = [shot for shot, _, _ in PICTURES.values() if not (SHOTS / f"{shot}.png").exists()]
    if missing:
        print("missing screenshots (run scripts/screenshots.sh):", *missing, sep="\n  ",
              file=sys.stderr)
        return 1
    IMG.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        for name, (shot, bands, scale) in PICTURES.items():
            png = (SHOTS / f"{shot}.png").read_bytes()
            width = int.from_bytes(png[16:20], "big")
            height = sum(size for _, size in bands)
            page = browser.new_page(viewport={"width": width, "height": height},
                                    device_scale_factor=scale)
            data = base64.b64encode(png).decode()
            page.set_content('<body style="margin:0">' + "".join(
                f'<div style="height:{size}px;overflow:hidden"><img style="display:block;'
                f'margin-top:-{top}px" src="data:image/png;base64,{data}"></div>'
                for top, size in bands) + "</body>")
            page.wait_for_function("[...document.images].every(i => i.complete)")
            out = IMG / f"{name}.jpg"
            page.screenshot(path=str(out), type="jpeg", quality=QUALITY)
            page.close()
            print(f"{out.relative_to(ROOT)}: {out.stat().st_size // 1024} KB")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
