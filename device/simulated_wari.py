"""A simulated Wari table: `device.synthetic_wari.render_board` for one session's board and lamp."""
from __future__ import annotations

from device.synthetic_wari import render_board


class SimulatedWariTable:
    """`style` picks the seeds ("nicker" nuts or "glass" beads; None: the renderer's default)."""

    def __init__(self, session: int, style: str | None = None):
        self.session = session
        self.style = style

    def opening(self, rules, rng):
        return rules.start()

    def calibration_picture(self, opening_json: dict, shot: int = 0):
        """Wari calibrates on the start position itself."""
        return self.picture(opening_json, shot)

    def picture(self, state_json: dict, shot: int = 0):
        style = {"style": self.style} if self.style else {}
        return render_board(state_json["pits"], state_json["stores"], seed=shot, session=self.session, **style)

    def game_pictures(self, states_json: list[dict], shot: int | None = None) -> list:
        return [self.picture(state, index if shot is None else shot) for index, state in enumerate(states_json)]
