"""Set-ups the first picture could not tell apart, followed beside the game until a picture decides.

A free set-up (Varanasi's towers) is read from one picture, and what that picture got wrong where
the camera sees poorly stays in every later position: a disc resting on a disc of its own colour
shows from above only as a thin edge, so a phantom disc read there (or a real one missed) is
carried, hidden under others, until a move uncovers it; the judge would then flag the legal move
that uncovered it ("3red vanished"). So beside the game it follows, the judge follows the other
set-ups the first picture nearly supports (the recogniser's `other_readings`), each through the
same moves, and adds up every picture's evidence for each line: the sum of the log-likelihoods
of the positions it puts on the table, picture after picture (independent pictures multiply
their likelihoods). When a picture is flagged or doubted on the line followed and another line
explains it with no move or one legal move, and that line's evidence, this picture's included,
beats the followed line's by `FIT_ODDS`, the game goes on from that line. A real slip is not
explained away so: a rival line must fit every picture since the start, and the slip's picture
as a legal position, and a slip leaves a table no hidden difference at the start explains.
"""
from __future__ import annotations

from dataclasses import dataclass

from engines.errors import ArbiterError

# How many other set-ups are followed, and how far below the reading of the first picture one may
# start (nats): those within the judge's fitting bar (log FIT_ODDS), the likeliest first.
RIVALS = 8
# A line whose evidence falls this far below the followed line's (nats) no longer competes: the
# pictures have ruled it out at odds beyond a million to one.
DROP_BELOW = 14.0


@dataclass
class Line:
    """One line of play: its positions (beside the judge's history) and the evidence for it."""

    history: list
    evidence: float


class RivalLines:
    """The lines of play from the set-ups the first picture nearly supports, other than the one
    the judge follows, and the evidence for that one."""

    def __init__(self, rules, followed_evidence: float, lines: list[Line]):
        self.rules = rules
        self.followed = followed_evidence
        self.lines = lines

    @classmethod
    def from_opening(cls, rules, observation, opening, margin: float) -> RivalLines | None:
        """The rivals of `opening` that the opening picture `observation` supports within
        `margin` nats of it; None where the recogniser names no other reading."""
        other_readings = getattr(observation, "other_readings", None)
        if observation is None or other_readings is None:
            return None
        lines = []
        for reading in other_readings(margin, RIVALS):
            try:
                state = rules.state_from_json({**reading, **_turn(opening)})
            except ArbiterError:
                continue
            if state != opening:
                lines.append(Line([state], observation.log_likelihood(state.to_json())))
        return cls(rules, observation.log_likelihood(opening.to_json()), lines) if lines else None

    def follow(self, history: list, moves: tuple, observation) -> None:
        """The judge took a verdict and its history is now `history` (its last positions reached
        by `moves`, or put back for a take-back); every line does the same and the picture's
        evidence is added to each."""
        for line in self.lines:
            del line.history[len(history) - len(moves):]  # taken back as far as the game, if it was
        # A line on which the game's moves are not all legal is ruled out by the pictures.
        self.lines = [line for line in self.lines if self._played(line, moves)]
        self.weigh(history[-1], observation)

    def _played(self, line: Line, moves: tuple) -> bool:
        """`moves` played on `line`, if each is legal there."""
        for move in moves:
            state = line.history[-1]
            if move not in self.rules.legal_moves(state):
                return False
            line.history.append(self.rules.apply(state, move))
        return True

    def weigh(self, followed_state, observation) -> None:
        """Adds one picture's evidence for the followed position and each line's, and drops the
        lines the pictures ruled out or that have joined the followed one."""
        if observation is None:
            return
        self.followed += observation.log_likelihood(followed_state.to_json())
        for line in self.lines:
            line.evidence += observation.log_likelihood(line.history[-1].to_json())
        self.lines = [line for line in self.lines
                      if line.history[-1] != followed_state and line.evidence > self.followed - DROP_BELOW]

    def switch(self, line: Line, history: list) -> None:
        """The game goes on from `line`; the line it leaves becomes a rival."""
        self.lines = [other for other in self.lines if other is not line]
        self.lines.append(Line(list(history), self.followed))
        self.followed = line.evidence


def _turn(state) -> dict:
    """The mover of `state`, which a reading cannot show."""
    shown = state.to_json()
    return {"to_move": shown["to_move"]} if "to_move" in shown else {}
