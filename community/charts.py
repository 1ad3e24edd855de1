"""The community chart: each resource's rating and its Total and PC columns over the
intervals, as inline SVG drawn on the server (no JavaScript).

`resource_charts` only computes geometry; `templates/community/page.html#chart`
draws it, with a title, a description that reads out every value, and text labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .models import Resource, rating_text

WIDTH, HEIGHT = 360, 214
LEFT, RIGHT = 46, 12
RATING_TOP, RATING_BOTTOM = 30, 108
MODIFIER_TOP, MODIFIER_BOTTOM = 128, 184
LABEL_Y = 202
BAR_WIDTH = 8
MIN_MODIFIER_SCALE = 9  # the largest §8 modifier step; smaller columns keep their proportion
MIN_TICK_GAP = 12  # px between two rating labels on the axis
MAX_POINT_LABELS = 8  # beyond this many intervals only the first and last ratings are labelled


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str
    title: str
    show_label: bool


@dataclass(frozen=True)
class Bar:
    kind: str  # "total" or "pc"
    x: float
    y: float
    height: float
    value: int
    title: str

    @property
    def label_y(self) -> float:
        """Where the value is written: above a bonus, below a penalty."""
        return self.y - 3 if self.value > 0 else self.y + self.height + 9

    @property
    def label_x(self) -> float:
        # The Total's value ends at its bar's right edge, the PC's starts at its left
        # edge, so two values side by side never overlap.
        return self.x + BAR_WIDTH if self.kind == "total" else self.x

    @property
    def anchor(self) -> str:
        return "end" if self.kind == "total" else "start"


@dataclass
class ResourceChart:
    slug: str
    name: str
    title: str
    desc: str
    points: list[Point] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)
    x_labels: list[tuple[float, str]] = field(default_factory=list)
    rating_ticks: list[tuple[float, str]] = field(default_factory=list)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    tick_x: int = LEFT - 6
    bar_width: int = BAR_WIDTH
    right_edge: int = WIDTH - RIGHT
    rating_top: int = RATING_TOP
    rating_bottom: int = RATING_BOTTOM
    modifier_top: int = MODIFIER_TOP
    modifier_bottom: int = MODIFIER_BOTTOM
    zero_y: float = (MODIFIER_TOP + MODIFIER_BOTTOM) / 2
    label_y: int = LABEL_Y

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


def interval_series(
    resources: Sequence[Resource], records: Sequence[Any], current: int
) -> dict[int, list[tuple[int, dict[str, int]]]]:
    """For each resource id: (interval, {rating, total, pc}) for every interval it
    existed in. A finished interval shows its table as it ended (before §8.3); the
    current interval shows the table now."""
    series: dict[int, list[tuple[int, dict[str, int]]]] = {r.pk: [] for r in resources}
    for record in records:
        for row in record.rows:
            if row["id"] in series:
                series[row["id"]].append((record.number, row))
    for resource in resources:
        row = {"rating": resource.rating, "total": resource.total, "pc": resource.pc}
        series[resource.pk].append((current, row))
    return series


def resource_charts(
    resources: Sequence[Resource], records: Sequence[Any], current: int, interval_name: str
) -> list[ResourceChart]:
    """One small chart per resource, on a shared interval axis."""
    series = interval_series(resources, records, current)
    plot_width = WIDTH - LEFT - RIGHT
    slot = plot_width / max(current, 1)
    scale = max(
        [MIN_MODIFIER_SCALE]
        + [abs(row[c]) for rows in series.values() for _, row in rows for c in ("total", "pc")]
    )
    half_band = (MODIFIER_BOTTOM - MODIFIER_TOP) / 2
    zero = (MODIFIER_TOP + MODIFIER_BOTTOM) / 2
    charts = []
    for resource in resources:
        rows = series[resource.pk]
        ratings = [row["rating"] for _, row in rows]
        low: float
        high: float
        low, high = min(ratings) - 2, max(ratings) + 2
        if high - low < 10:
            middle = (high + low) / 2
            low, high = middle - 5, middle + 5

        def rating_y(value: float, low: float = low, high: float = high) -> float:
            return RATING_BOTTOM - (value - low) / (high - low) * (RATING_BOTTOM - RATING_TOP)

        chart = ResourceChart(
            slug=f"resource-{resource.pk}",
            name=resource.name,
            title=f"{resource.name}: rating, Total and PC by {interval_name}",
            desc="; ".join(
                f"{interval_name} {number}: rating {rating_text(row['rating'])}, "
                f"Total {_signed(row['total'])}, PC {_signed(row['pc'])}"
                for number, row in rows
            )
            + ".",
        )
        # The lowest and highest ratings on the axis, unless they would overlap.
        ticks = [max(ratings)]
        if rating_y(min(ratings)) - rating_y(max(ratings)) >= MIN_TICK_GAP:
            ticks.append(min(ratings))
        chart.rating_ticks = [(rating_y(value), rating_text(value)) for value in ticks]
        for number, row in rows:
            centre = LEFT + slot * (number - 0.5)
            label = rating_text(row["rating"])
            chart.points.append(
                Point(
                    x=centre,
                    y=rating_y(row["rating"]),
                    label=label,
                    title=f"{interval_name} {number}: {label}",
                    show_label=len(rows) <= MAX_POINT_LABELS or number in (1, current),
                )
            )
            for kind, offset, value in (
                ("total", -BAR_WIDTH - 1, row["total"]),
                ("pc", 1, row["pc"]),
            ):
                height = abs(value) / scale * half_band
                chart.bars.append(
                    Bar(
                        kind=kind,
                        x=centre + offset,
                        y=zero - height if value > 0 else zero,
                        height=height,
                        value=value,
                        title=f"{interval_name} {number}: {'Total' if kind == 'total' else 'PC'} "
                        f"{_signed(value)}",
                    )
                )
        chart.x_labels = [(LEFT + slot * (n - 0.5), str(n)) for n in range(1, current + 1)]
        charts.append(chart)
    return charts


def _signed(value: int) -> str:
    return f"{value:+d}" if value else "0"
