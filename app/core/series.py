"""A running total thinned for a chart: a long night drawn with at most :data:`MAX_POINTS`
points, keeping each stretch's highest and lowest total so that no swing disappears. Pure:
the session chart and a league player's record both use it."""
from __future__ import annotations

from collections.abc import Sequence

MAX_POINTS = 150
Point = tuple[int, int]


def downsample(points: Sequence[Point], limit: int = MAX_POINTS) -> list[Point]:
    """At most ``limit`` of ``points`` (x ascending): the first, the last, and for each of
    ``(limit - 2) // 2`` equal stretches in between its lowest and highest point, in order."""
    if len(points) <= limit:
        return list(points)
    inner = points[1:-1]
    buckets = (limit - 2) // 2
    kept = [points[0]]
    for b in range(buckets):
        chunk = inner[b * len(inner) // buckets:(b + 1) * len(inner) // buckets]
        if not chunk:
            continue
        low = min(chunk, key=lambda p: p[1])
        high = max(chunk, key=lambda p: p[1])
        kept.extend(sorted({low, high}))
    kept.append(points[-1])
    return kept
