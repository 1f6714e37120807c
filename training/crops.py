"""Crops of every pit of a bench-format session's photos, cut as recognition cuts them and labelled with the pits' true counts."""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import calibration.wari_start_checks as wari_calibration  # where the counter gives its second opinion
from calibration.wari import START_SEEDS_PER_PIT, calibrate
from vision.io import read_image
from vision.wari import WariProfile, colour_image_for
from vision.wari_board import PIT_COUNT
from vision.wari_pile_counter import pit_crops, standardised, turned


@contextmanager
def start_known_to_hold_4():
    """Calibrate without the pile counter's second opinion on the start photo: a rendered start is
    known to hold 4 seeds a pit, and a refusal that depends on the network being replaced would
    make the training set depend on earlier weights."""
    asked = wari_calibration.count_probabilities

    def sure_of_4(crops: np.ndarray, quarter_turns: tuple[int, ...]) -> np.ndarray:
        chances = np.zeros((len(crops), START_SEEDS_PER_PIT + 1))
        chances[:, START_SEEDS_PER_PIT] = 1.0
        return chances

    wari_calibration.count_probabilities = sure_of_4
    try:
        yield
    finally:
        wari_calibration.count_probabilities = asked


def photo_crops(image: np.ndarray, profile: WariProfile) -> np.ndarray:
    """PIT_COUNT x CROP x CROP x 3: every pit of a photo, cut as `vision.wari.recognize` cuts it
    (the calibrated colour image, the pit's own scale, crops scaled to the seeds)."""
    image = colour_image_for(image, profile.geometry)
    return pit_crops(image, profile.geometry, profile.seed_diameter, list(range(PIT_COUNT)))


def session_crops(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """(crops N x CROP x CROP x 3, true counts N) of every pit of every position and sequence photo
    of a session, calibrated on its start photo. Raises ArbiterError if calibration refuses it."""
    truth = json.loads((folder / "truth.json").read_text())
    with start_known_to_hold_4():
        profile = WariProfile.from_json(calibrate(read_image(folder / truth["start"]["image"])))
    crops, counts = [], []
    for item in truth["positions"] + truth["sequence"]:
        crops.append(photo_crops(read_image(folder / item["image"]), profile))
        counts += item["pits"]
    return np.concatenate(crops), np.array(counts)


def quarter_turned_inputs(crops: np.ndarray) -> np.ndarray:
    """The crops standardised as the network reads them, at each of the four quarter turns
    recognition may read them at: what the 8-bit network's activation ranges are measured on."""
    inputs = standardised(crops)
    return np.concatenate([turned(inputs, turns) for turns in range(4)])
