"""The night as a picture: each player's running total after every hand, drawn as a small
SVG line chart by hand (no chart library, nothing loaded from outside).

Pure functions of the series the core adds up (``sessions.running_totals``); a long night is
thinned to at most :data:`MAX_POINTS` points a player, keeping each stretch's highest and
lowest total so that no swing disappears from the picture.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from ...core.series import downsample

WIDTH, PLOT_HEIGHT = 360, 180
LEFT, RIGHT, TOP, BOTTOM = 52, 8, 10, 18
LEGEND_ROW = 18
#: Okabe–Ito colours, told apart by colour-blind eyes too; each line also has its own dashes.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
           "#8C6D00")
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 4", "1 2", "12 4", "6 2 2 2 2 2")

#: Labels on the axis closer than this (px) would overlap: the nearer one is left out.
LABEL_GAP = 13


def axis_values(low: int, high: int, at: Callable[[int], float]) -> list[int]:
    """The values labelled on the axis: the highest and the lowest, and 0 where it does not
    crowd them (its line is drawn either way)."""
    kept = sorted({low, high})
    if 0 not in kept and all(abs(at(0) - at(v)) >= LABEL_GAP for v in kept):
        kept.append(0)
    return sorted(kept)


def chart_height(players: int) -> int:
    """The chart's height (px at its width of :data:`WIDTH`) for ``players`` lines: the plot and
    a legend row for every two. The page gives the image this size before it loads, so that
    nothing below it moves when it arrives."""
    return TOP + PLOT_HEIGHT + BOTTOM + (players + 1) // 2 * LEGEND_ROW + 4


def _scale(value: float, low: float, high: float, start: float, length: float) -> float:
    return start + (value - low) / (high - low) * length


def chart_svg(names: Sequence[str], series: Sequence[tuple[int, Sequence[int | None]]], *,
              label: Callable[[int], str], title: str) -> str:
    """An SVG of each player's running total. ``series`` is (hand number, each seat's total
    in minor units, None before a seat joined) in hand order, starting from (0, zeros);
    ``label`` writes an axis value
    (minor units) the way the table reads it."""
    lines = [downsample([(number, value) for number, totals in series
                         if (value := totals[seat]) is not None])
             for seat in range(len(names))]
    last_x = max(series[-1][0], 1) if series else 1
    values = [y for line in lines for _, y in line] or [0]
    low, high = min(0, *values), max(0, *values)
    if low == high:
        low, high = low - 100, high + 100
    plot_w = WIDTH - LEFT - RIGHT
    height = chart_height(len(names))

    def x(value: int) -> str:
        return f"{_scale(value, 0, last_x, LEFT, plot_w):.1f}"

    def y(value: int) -> str:
        return f"{_scale(value, high, low, TOP, PLOT_HEIGHT):.1f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
           f'width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="11" '
           f'role="img" aria-label="{escape(title)}">',
           f"<title>{escape(title)}</title>",
           f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{PLOT_HEIGHT}" '
           'fill="#fff" stroke="#ccc"/>',
           f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(0)}" y2="{y(0)}" stroke="#888"/>']
    for value in axis_values(low, high, lambda v: float(y(v))):
        out.append(f'<text x="{LEFT - 4}" y="{y(value)}" dy="4" text-anchor="end">'
                   f"{escape(label(value))}</text>")
    axis_y = TOP + PLOT_HEIGHT + 13
    out.append(f'<text x="{LEFT}" y="{axis_y}">0</text>'
               f'<text x="{WIDTH - RIGHT}" y="{axis_y}" text-anchor="end">{last_x}</text>')
    for seat, line in enumerate(lines):
        colour, dash = COLOURS[seat % len(COLOURS)], DASHES[seat % len(DASHES)]
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        points = " ".join(f"{x(px)},{y(py)}" for px, py in line)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashes} '
                   f'points="{points}"/>')
        row_y = TOP + PLOT_HEIGHT + BOTTOM + (seat // 2) * LEGEND_ROW + 12
        col_x = 8 + (seat % 2) * (WIDTH // 2)
        name = names[seat] if len(names[seat]) <= 18 else names[seat][:17] + "…"
        out.append(f'<line x1="{col_x}" x2="{col_x + 28}" y1="{row_y - 4}" y2="{row_y - 4}" '
                   f'stroke="{colour}" stroke-width="3"{dashes}/>'
                   f'<text x="{col_x + 34}" y="{row_y}">{escape(name)}</text>')
    out.append("</svg>")
    return "".join(out)
