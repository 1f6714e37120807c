"""A hand-written SVG line chart of scores over time (no chart library, no network)."""
from __future__ import annotations

from html import escape

# Colour-blind-safe line colours (Okabe-Ito palette), one per player or team.
LINE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")

_WIDTH, _HEIGHT = 640, 320
_LEFT, _RIGHT, _BOTTOM = 64, 24, 56
_LEGEND_COLUMNS, _LEGEND_WIDTH, _LEGEND_ROW = 3, 190, 32


def _nice_top(value: float) -> int:
    """A round axis maximum at or above value (1, 2 or 5 times a power of ten), for readable ticks."""
    magnitude = 1
    while True:
        for step in (1, 2, 5):
            if step * magnitude >= value:
                return step * magnitude
        magnitude *= 10


def line_chart(progress: list[dict], x_label: str, title: str) -> str:
    """One line per key of the dicts in `progress` (the totals after each step), step 0 at 0."""
    names = list(dict.fromkeys(name for point in progress for name in point))
    if not progress or not names:
        return f'<p class="empty">No scores yet for {escape(title.lower())}.</p>'
    steps = len(progress)
    top = _nice_top(max(max(point.values(), default=0) for point in progress) or 1)
    top_margin = 20 + _LEGEND_ROW * -(-len(names) // _LEGEND_COLUMNS)
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - top_margin - _BOTTOM

    def x(step: int) -> float:
        return _LEFT + plot_w * step / steps

    def y(value: float) -> float:
        return top_margin + plot_h * (1 - value / top)

    parts = [f'<svg class="chart" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" aria-label="{escape(title)}" '
             'xmlns="http://www.w3.org/2000/svg">', f'<title>{escape(title)}</title>']
    for fraction in (0, 0.5, 1):
        value = top * fraction
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_WIDTH - _RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}"/>'
                     f'<text class="tick" x="{_LEFT - 8}" y="{y(value) + 5:.1f}" text-anchor="end">{value:g}</text>')
    parts.append(f'<text class="tick" x="{_LEFT}" y="{_HEIGHT - 26}">0</text>'
                 f'<text class="tick" x="{_WIDTH - _RIGHT}" y="{_HEIGHT - 26}" text-anchor="end">{steps}</text>'
                 f'<text class="axis" x="{_LEFT + plot_w / 2}" y="{_HEIGHT - 6}" text-anchor="middle">'
                 f'{escape(x_label)}</text>')
    for index, name in enumerate(names):
        colour = LINE_COLOURS[index % len(LINE_COLOURS)]
        values = [0] + [point.get(name, 0) for point in progress]
        points = " ".join(f"{x(step):.1f},{y(value):.1f}" for step, value in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="4" points="{points}">'
                     f'<title>{escape(str(name))}</title></polyline>')
        # The legend sits in a row above the plot: labels at the line ends would collide on a tie.
        row, column = divmod(index, _LEGEND_COLUMNS)
        parts.append(f'<text class="legend" x="{_LEFT + column * _LEGEND_WIDTH}" y="{30 + row * _LEGEND_ROW}" '
                     f'fill="{colour}">'
                     f'■ {escape(str(name))} {values[-1]:g}</text>')
    parts.append("</svg>")
    return "".join(parts)
