"""A Varanasi calibration profile parsed for recognition, cached per profile object."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engines.errors import ArbiterError
from vision.parsed_profiles import ParsedProfiles
from vision.varanasi_colour import ColourModel, lab_to_srgb
from vision.varanasi_geometry import ScaleField
from vision.varanasi_params import LABEL_SIGMA, PARSED_PROFILES_KEPT
from vision.varanasi_pieces import PieceSet
from vision.varanasi_scene import board_distance2


@dataclass(frozen=True)
class ParsedProfile:
    """What recognition needs from the profile, parsed once."""

    pieces: PieceSet
    scale: ScaleField
    colours: ColourModel
    # The colour of a disc's ring is judged with greys (black, white) growing lighter along the
    # lamp's grey axis: a black face lit lighter than in calibration takes more of a tinted
    # lamp's tint. Pixel labels keep the plain lightness axis: they shape footprints and rim
    # tests, and with the grey axis white pixels on a cream board move between white and board.
    # Rings, not labels, also allow for glare on a face (`GlareModel`), whose clipped channels
    # turn its hue: the ring's median is what names a disc.
    ring_colours: ColourModel
    board: dict
    board_area: np.ndarray | None
    weakest_rim: float
    rims: tuple[float, ...]  # rim coverage of a lone disc of each colour, in colour order
    weakest_votes: float
    image_size: tuple[int, int] | None

    @cached_property
    def board_like_colours(self) -> tuple[int, ...]:
        """Colours whose calibrated mean would be labelled board (within LABEL_SIGMA of it): white
        on a cream board, which the camera can barely tell apart."""
        distance2 = board_distance2(self.colours.means, self.board)
        return tuple(int(i) for i in np.flatnonzero(distance2 <= LABEL_SIGMA ** 2))

    @cached_property
    def chromaticities(self) -> np.ndarray:
        """Each colour's calibrated mean as chromaticity (RGB shares, see `chromaticity`)."""
        return chromaticity(self.colours.means)

    @classmethod
    def from_profile(cls, profile: dict) -> "ParsedProfile":
        if not isinstance(profile, dict) or profile.get("game") != "varanasi":
            game = profile.get("game") if isinstance(profile, dict) else None
            raise ArbiterError(f"this profile is for {game!r}, not varanasi")
        try:
            pieces = PieceSet.from_json(profile["pieceset"])
            scale = ScaleField(*profile["px_per_mm"])
            colours = ColourModel.from_profile({c: profile["colours"][c] for c in pieces.colours})
            ring_colours = ColourModel.from_profile({c: profile["colours"][c] for c in pieces.colours}, tinted_greys=True,
                                                    glare=True)
            rims = tuple(float(profile["colours"][c]["rim_coverage"]) for c in pieces.colours)
            weakest = min(rims)
            weakest_votes = min(float(profile["colours"][c]["rim_votes"]) for c in pieces.colours)
            size = profile.get("image_size")
            image_size = (int(size[0]), int(size[1])) if size else None
            board = profile["board"]
            area = profile.get("board_area")
            board_area = np.array([[ch == "#" for ch in row] for row in area]) if area else None
        except (KeyError, TypeError, ValueError, np.linalg.LinAlgError) as exc:
            raise ArbiterError(f"Varanasi profile is incomplete or damaged ({exc.__class__.__name__}: {exc}); calibrate again") from None
        return cls(pieces, scale, colours, ring_colours, board, board_area, weakest, rims, weakest_votes, image_size)


parsed_profile = ParsedProfiles(ParsedProfile.from_profile, PARSED_PROFILES_KEPT)


def chromaticity(lab: np.ndarray) -> np.ndarray:
    """The shares of R, G and B (8-bit sRGB) of each Lab row, rounded to whole Lab levels: what
    lighting's strength leaves alone (one count added to each channel keeps a black pixel's
    shares defined)."""
    rgb = lab_to_srgb(np.rint(lab)) + 1.0
    return rgb / rgb.sum(axis=1, keepdims=True)
