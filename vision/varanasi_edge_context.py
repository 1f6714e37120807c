"""A tower being read by edges: the frame, the sizes accepted so far, and how they stack."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from vision.varanasi_geometry import EdgeField
from vision.varanasi_params import LABEL_SMOOTHING
from vision.varanasi_pixels import chromaticity_noise, masked_median
from vision.varanasi_profile import ParsedProfile


@dataclass(frozen=True)
class EdgeContext:
    """What the edge tests of one tower share: its crop's edges and labels, and distances (px)."""

    edges: EdgeField
    labels: np.ndarray
    frame: ParsedProfile
    seed: np.ndarray
    radii: dict
    reach: float
    step: float
    gap: float
    # Outlines (x, y, radius in the crop) of the towers read before this one.
    neighbours: tuple
    # (size, centre in the crop) of the centre-vote peaks in the crop.
    peaks: tuple = ()
    # Dark-line tests by the disc they rest on: sizes and rounds share them.
    dark_lines: dict = field(default_factory=dict)

    # What the drawn-line test (`rim_of_drawn_line`) reads of the crop's board, once per tower:
    # sizes and rounds ask it again of the same crop.
    @cached_property
    def board_mask(self) -> np.ndarray:
        """The pixels labelled board, as 0 and 1 bytes."""
        return (self.labels == len(self.frame.colours.names)).view(np.uint8)

    @cached_property
    def board_lab(self) -> np.ndarray | None:
        """The board's median Lab in the crop (see `masked_median`)."""
        return masked_median(self.edges.lab_bytes, self.board_mask)

    @cached_property
    def board_noise(self) -> float:
        """The board's pixel noise in chromaticity (see `chromaticity_noise`)."""
        return chromaticity_noise(self.edges.lab_bytes, self.board_mask)

    @cached_property
    def smooth_lab(self) -> np.ndarray:
        """The crop's Lab box-averaged as labels are (float32)."""
        return cv2.blur(self.edges.lab_bytes, (LABEL_SMOOTHING, LABEL_SMOOTHING)).astype(np.float32)


def present_under(size: int, accepted: dict) -> list[int]:
    """The sizes of the accepted discs, found present, that lie under a disc of `size`."""
    return [s for s, (_, presence, _) in accepted.items() if s > size and presence >= 0.5]


def tower_level(size: int, accepted: dict) -> int:
    """How many discs of the tower, found present, lie under a disc of `size`."""
    return len(present_under(size, accepted))


def bottom_under_found(size: int, accepted: dict) -> bool:
    """Whether a disc of `size` would be a tower's bottom disc under discs already found (accepted
    discs are found present)."""
    return any(s < size for s in accepted) and disc_below(size, accepted) is None


def disc_below(size: int, accepted: dict) -> int | None:
    """The accepted disc present that a disc of `size` would rest on: the smallest bigger one."""
    bigger = present_under(size, accepted)
    return min(bigger) if bigger else None
