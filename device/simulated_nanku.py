"""A simulated Nanku table: `device.synthetic_nanku.render` for one session's camera, lamp and cubes."""
from __future__ import annotations

from random import Random

from device.synthetic_nanku import Look, random_pose, render
from vision.nanku_camera import cubes_of


class SimulatedNankuTable:
    """The structure is slid and turned between pictures, as players may; pictures of one position
    in a row (a stable position seen again) keep its pose."""

    def __init__(self, session: int):
        self.session = session
        self.look = Look.drawn(session)
        self._poses: dict = {}

    def opening(self, rules, rng):
        return rules.start()

    def calibration_picture(self, opening_json: dict, shot: int = 0):
        """Nanku calibrates on the first piece alone on the table, lying, white at the origin."""
        first = {"game": "nanku", "pieces": [[[0, 0, 0, "white"], [1, 0, 0, "black"]]]}
        return self.picture(first, shot)

    def picture(self, state_json: dict, shot: int = 0):
        cubes = cubes_of(state_json)
        key = repr(sorted(map(tuple, cubes)))
        if key not in self._poses:
            self._poses = {key: random_pose(Random(self.session * 7919 + len(cubes)), cubes or [[0, 0, 0, "white"]])}
        return render(cubes, self.look, self._poses[key], shot)

    def game_pictures(self, states_json: list[dict], shot: int | None = None) -> list:
        return [self.picture(state, index if shot is None else shot) for index, state in enumerate(states_json)]
