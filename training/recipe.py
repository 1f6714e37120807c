"""The recipe of the shipped pile counter, in one place: which renders it is trained on, and how.

Every figure here is chosen to fit the rebuild into about an hour of one or two cores of the
2-core development machine (`python -m training.rebuild --workers 2`, niced): rendering a
`--training` session of POSITIONS photos takes about 80 s on one core, an epoch about 1 s per
100 crops on one thread.
"""
from __future__ import annotations

from dataclasses import dataclass

FLOAT_NETWORK = "vision/data/wari_pile_counter.onnx"  # 32-bit floats, as trained
INT8_NETWORK = "vision/data/wari_pile_counter_int8.onnx"  # what recognition runs
SHIPPED_RECORD = "training/shipped.json"  # each shipped file's sha256 and where it came from
REBUILT_RECORD = "training/rebuilt.json"  # the recipe's latest full rebuild: its files' sha256, its arguments


@dataclass(frozen=True)
class TrainingRender:
    """One `python -m training.wari_render OUT --style STYLE --session NUMBER --positions N --training` session."""

    style: str
    number: int
    positions: int

    @property
    def name(self) -> str:
        return f"{self.style}-{self.number}"

    def arguments(self) -> list[str]:
        return ["--style", self.style, "--session", str(self.number), "--positions", str(self.positions), "--training"]


POSITIONS = 10  # photos a session besides its start: more sessions of fewer photos vary boards more
# Nicker boards twice as many as glass: their piles are the harder to count. Numbers 3000 up are
# used by nothing else (the measuring renders use others).
TRAINING_RENDERS = tuple(
    [TrainingRender("nicker", number, POSITIONS) for number in range(3000, 3030)]
    + [TrainingRender("glass", number, POSITIONS) for number in range(3000, 3015)]
)
EPOCHS = 16  # from scratch, never from earlier weights
SEED = 0  # every draw of the training: initial weights, crop order, variations
THREADS = 1  # PyTorch threads: the same seed on another thread count may add up in another order
