"""The checks that refuse a photo that is not a Wari board at the start position, saying what to mend."""
from __future__ import annotations

import numpy as np

from engines.errors import ArbiterError
from engines.wari import pit_name
from vision.wari import WariObservation, WariProfile
from vision.wari_board import PIT_COUNT, BoardGeometry, local_scale
from vision.wari_pile_counter import count_probabilities, pit_crops
from vision.wari_params import (
    RIM_PAST_EDGE,
    SECOND_WITNESS,
    START_PIT_SEEDS,
    START_SPREAD,
    WITNESS_TURNS,
)

START_SEEDS_PER_PIT = 4
NOT_A_START = "does not show a Wari board at the start position (two rows of six pits with 4 seeds each)"
NEEDS_THE_START = "calibration needs the start position with 4 seeds in each pit"
FAINT_PIT_MESSAGE = (
    f"one pit in the photo shows far fewer seeds than the others, or is cut by the photo's edge: {NEEDS_THE_START}, "
    "the whole board in view and seeds whose colour stands out from the board's"
)


class PitOutOfView(ArbiterError):
    """A refusal naming the pit the photo's edge cuts: the one thing to mend, whatever else failed."""


def check_pits_in_view(geometry: BoardGeometry) -> None:
    """Refuse a start photo one of whose pits the photo's edge cuts (`RIM_PAST_EDGE`), naming the
    pit cut most."""
    width, height = geometry.image_size
    reaches = []  # (how far past an edge, in pit radii; the pit; the edge)
    for pit in range(PIT_COUNT):
        rim = geometry.outline_in_image(pit)
        radius = geometry.pit_radius * local_scale(geometry, pit)
        past = {
            "left": -rim[:, 0].min(),
            "right": rim[:, 0].max() - width,
            "top": -rim[:, 1].min(),
            "bottom": rim[:, 1].max() - height,
        }
        edge = max(past, key=past.get)
        reaches.append((past[edge] / radius, pit, edge))
    reach, pit, edge = max(reaches)
    if reach > RIM_PAST_EDGE:
        raise PitOutOfView(f"{pit_name(pit)} is cut by the photo's {edge} edge: {NEEDS_THE_START}, the whole board in view")


def check_pits_show_their_seeds(seeds_shown: np.ndarray, spread: float) -> None:
    """Refuse a start photo whose pits, as found, do not each show about 4 seeds' worth of area
    (`seeds_shown`), or whose readings differ too much (`spread`, in seeds) to be 4 each."""
    empty, fewest, most = START_PIT_SEEDS
    if seeds_shown.max() > most or seeds_shown.min() < empty:
        raise ArbiterError(f"the photo {NOT_A_START}")
    faintest = int(np.argmin(seeds_shown))
    if seeds_shown[faintest] < fewest:
        raise ArbiterError(
            f"{pit_name(faintest)} shows far fewer seeds than the others ({seeds_shown[faintest]:.1f} seeds' worth "
            f"of area): {NEEDS_THE_START}, and seeds whose colour stands out from the board's"
        )
    if spread > START_SPREAD:
        raise ArbiterError(f"the photo's pits show seeds {spread:.1f} seeds apart on average: {NEEDS_THE_START}")


def check_misread_pits_hold_4(image: np.ndarray, profile: dict, reading: WariObservation) -> None:
    """Refuse a start photo one of whose pits holds another number of seeds than 4: the profile
    reads it so (`reading`, of this photo), and the pile counter, looking at the pit alone, agrees
    that 4 is unlikely. Where the counter sees 4, the profile's misreading is a glint lost, as in
    any photo."""
    misread = [pit for pit, count in enumerate(reading.pits) if count != START_SEEDS_PER_PIT]
    if not misread:
        return
    crops = pit_crops(image, reading.geometry, WariProfile.from_json(profile).seed_diameter, misread)
    chances = count_probabilities(crops, WITNESS_TURNS)[:, START_SEEDS_PER_PIT]
    for pit, chance in zip(misread, chances):
        if chance < SECOND_WITNESS:
            raise ArbiterError(
                f"{pit_name(pit)} seems to hold {seeds_phrase(reading.pits[pit])}, not 4: {NEEDS_THE_START}, every seed in view"
            )


def seeds_phrase(count: int) -> str:
    return f"{count} seed" if count == 1 else f"{count} seeds"
