"""What one stable picture means for the game: the judge's verdict (`arbiter.judge.Judge`)."""
from __future__ import annotations

from dataclasses import dataclass, field

from arbiter.rival_lines import Line

# Verdict kinds, also the `verdict` key of a transition; MOVES is three or more moves.
OPENING, SAME, MOVE, TWO_MOVES, MOVES, UNDO, ILLEGAL = (
    "start", "same", "move", "two_moves", "moves", "undo", "illegal")


@dataclass(frozen=True)
class Verdict:
    """What one stable picture means for the game.

    `state` is the engine position after the verdict (unchanged for same / illegal; None while a
    game with a standard start waits for it); `recognised` is the recogniser's reading.
    """

    kind: str
    state: object
    recognised: dict
    moves: tuple = ()
    reason: str | None = None
    result: dict | None = None
    note: str | None = None
    # How sure the judge is of this verdict: the share of the picture's evidence that its
    # explanation holds among every explanation weighed (`Judge.judge`).
    confidence: float = 1.0
    # Taken in doubt (ASK_ODDS): where the table is in doubt, e.g. "South's store".
    doubt: str | None = None
    # Flagged or taken in doubt: the position (JSON) the nearest legal explanation leaves, which
    # the picture is marked against where it differs.
    expected: dict | None = None
    # The observation the verdict rests on (where the recogniser looked again, its second look).
    observation: object = field(default=None, repr=False, compare=False)
    # Where the pictures showed the game on another line since its set-up (`RivalLines`): that line,
    # whose positions replace the judge's before the verdict's moves.
    rebased: Line | None = field(default=None, repr=False, compare=False)
    # A picture of a table no play or slip leaves, taken as misread: judged as no change, it
    # counts as a flagged picture for the moves the next picture may show (`Judge.apply`).
    waited: bool = False

    @property
    def legal(self) -> bool:
        """False for an illegal change and for several moves the picture leaves in doubt (the
        reason says why)."""
        return self.kind != ILLEGAL and self.reason is None

    def transition(self, source: str, target: str) -> dict:
        """The contract's replay transition, extended with `verdict`, `moves` and `result`."""
        shown = self.state.to_json() if self.kind != ILLEGAL and self.state is not None else self.recognised
        transition = {
            "from": source,
            "to": target,
            "legal": self.legal,
            "move": self.moves[0].to_json() if len(self.moves) == 1 else None,
            "reason": self.reason,
            "state": shown,
            "verdict": self.kind,
            "moves": [m.to_json() for m in self.moves],
        }
        if self.result is not None:
            transition["result"] = self.result
        if self.note is not None:
            transition["note"] = self.note
        transition["confidence"] = round(self.confidence, 4)
        return transition
