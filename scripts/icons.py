"""Make the app's home-screen icons (app/static/icons/*.png) from the SVG below, once, with
Playwright's Chromium: ``.venv/bin/python scripts/icons.py``. The PNGs are committed; run it
again only when the drawing changes. The maskable icon keeps its drawing inside the middle
80% (the safe zone a phone's mask may not cut)."""
from __future__ import annotations

import os
import pathlib
import shutil

from playwright.sync_api import sync_playwright

OUT = pathlib.Path(__file__).resolve().parents[1] / "app" / "static" / "icons"
GREEN = "#1f5130"


def drawing(size: int, scale: float, round_corners: bool) -> str:
    """A card with a tally of four and a strike on a felt-green ground."""
    r = size * 0.18 if round_corners else 0
    half, zoom = size / 2, size * scale / 100
    inner = f'transform="translate({half} {half}) scale({zoom}) translate(-50 -50)"'
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}"
 viewBox="0 0 {size} {size}">
<rect width="{size}" height="{size}" rx="{r}" fill="{GREEN}"/>
<g {inner}>
  <rect x="22" y="10" width="56" height="80" rx="7" fill="#fffdf5" stroke="#0d2a18"
   stroke-width="2"/>
  <g stroke="#1f5130" stroke-width="5" stroke-linecap="round">
    <line x1="35" y1="30" x2="35" y2="70"/><line x1="45" y1="30" x2="45" y2="70"/>
    <line x1="55" y1="30" x2="55" y2="70"/><line x1="65" y1="30" x2="65" y2="70"/>
  </g>
  <line x1="28" y1="64" x2="72" y2="36" stroke="#c0392b" stroke-width="5" stroke-linecap="round"/>
</g></svg>"""


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    chromium = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    shots = {"icon-192.png": (192, 0.9, True), "icon-512.png": (512, 0.9, True),
             "maskable-512.png": (512, 0.62, False)}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, (size, scale, rounded) in shots.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content("<html><body style='margin:0;background:transparent'>"
                             + drawing(size, scale, rounded) + "</body></html>")
            page.screenshot(path=str(OUT / name), omit_background=True)
            page.close()
        browser.close()
    print("\n".join(sorted(str(p) for p in OUT.glob("*.png"))))


if __name__ == "__main__":
    main()
