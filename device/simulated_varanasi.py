"""A simulated Varanasi table: `device.synthetic_varanasi`'s renderer for one session and piece set."""
from __future__ import annotations

from device.synthetic_varanasi import layout_table, render_calibration, render_table
from engines.errors import ArbiterError
from engines.varanasi import random_setup

OPENING_DISCS = 12  # discs in a simulated game's random opening


class SimulatedVaranasiTable:
    """The session seeds where towers stand, the lamp and the noise; `pieceset` is the set's file."""

    def __init__(self, session: int, pieceset: dict | None = None):
        if not isinstance(pieceset, dict) or "colours" not in pieceset:
            raise ArbiterError("a simulated Varanasi table needs a piece set (the profile's \"pieceset\")")
        self.session = session
        self.pieceset = pieceset

    def opening(self, rules, rng):
        """Random towers of the set's colours: Varanasi has no standard start."""
        return random_setup(rng, sorted(self.pieceset["colours"]), discs=OPENING_DISCS)

    def calibration_picture(self, opening_json: dict | None = None, shot: int = 0):
        """Every disc of the set lying flat and apart."""
        return render_calibration(self.pieceset, seed=self.session)

    def picture(self, state_json: dict, shot: int = 0):
        """The towers at random spots of the session (the noise too follows the session)."""
        return render_table(state_json["stacks"], self.pieceset, seed=self.session)

    def game_pictures(self, states_json: list[dict], shot: int | None = None) -> list:
        """A tower never leaves its spot while its bottom disc stays there (parts move onto towers,
        never to new spots), so each tower is drawn where its bottom disc stood at the start (the
        noise follows the session, whatever the `shot`)."""
        if not states_json:
            return []
        opening = states_json[0]["stacks"]
        spots = {stack[0]: tower[0].centre
                 for stack, tower in zip(opening, layout_table(opening, self.pieceset, self.session))}
        return [render_table(state["stacks"], self.pieceset, seed=self.session,
                             centres_px=[spots[stack[0]] for stack in state["stacks"]])
                for state in states_json]
