"""A learned counter of one pit's seeds: one more cue where seeds pile and hide each other.

A small convolutional network (trained on our own renders, never on the bench, exported as ONNX
and made into the 8-bit network run here: training/README.md, `python -m training.rebuild`)
reads a crop around a pit and gives a probability to each
count. Recognition weighs with it the counts the hand-made cues find plausible in the pits where
piles have a chance or the cues are in doubt, and reads the crop turned every quarter where one
look leaves the count in doubt; smaller counts the cues are sure of are left to them, at no
network time. ONNX Runtime runs it, on the calling thread.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import onnxruntime

from vision.wari_board import BoardGeometry, local_scale
from vision.wari_params import (
    ADDED_FROM,
    ASKED_FROM,
    CROP,
    CROP_RADII,
    CROP_SCALE_RANGE,
    HIDDEN_SEED_CHANCE,
    HIDDEN_SEED_UP_TO,
    LOOK_AGAIN_BELOW,
    NETWORK_BEYOND_DECAY,
    NETWORK_FLOOR,
    NETWORK_POWER,
    PILE_CHANCE,
    PILE_FROM,
    TRAINED_SEED_SIZE,
    UNSURE_BELOW,
)

TRAINED_NETWORK_FILE = Path(__file__).parent / "data" / "wari_pile_counter.onnx"  # 32-bit floats, as trained
# The network recognition runs: the same with 8-bit weights and activations in all but its first
# and last layers, a crop in about half the time (bench_wari_vision.py times both).
NETWORK_FILE = Path(__file__).parent / "data" / "wari_pile_counter_int8.onnx"


def network_session(path: Path) -> onnxruntime.InferenceSession:
    """The network stored at `path`, as recognition runs it."""
    # ONNX Runtime rather than OpenCV's dnn module: faster on the float network, and it runs the
    # 8-bit network's quantized layers on integer kernels. One thread: the target is one core, and
    # the bench times the reading thread.
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=1)
def _network() -> onnxruntime.InferenceSession:
    return network_session(NETWORK_FILE)


def crop_scale(geometry: BoardGeometry, seed_diameter: float) -> float:
    """How much larger than CROP_RADII pit radii to cut the crops of a board whose seeds are
    `seed_diameter` across (board units)."""
    seed_size = seed_diameter / geometry.pit_radius
    scale = float(np.clip(seed_size / TRAINED_SEED_SIZE, 1 - CROP_SCALE_RANGE, 1 + CROP_SCALE_RANGE))
    # Scaled up, a crop stops where the nearest other bowl begins: a neighbour's seeds lying by its
    # rim would enter it.
    next_bowl = min(1.0, geometry.row_spacing) - geometry.pit_radius
    return min(scale, max(1.0, next_bowl / (CROP_RADII * geometry.pit_radius)))


def pit_crops(image: np.ndarray, geometry: BoardGeometry, seed_diameter: float, pits: list[int]) -> np.ndarray:
    """CROP x CROP crops (N x CROP x CROP x 3) centred on the given pits of a frame of any size, of
    a board whose seeds are `seed_diameter` across (board units; see `crop_scale`)."""
    scale = image.shape[1] / geometry.image_size[0]
    radii = CROP_RADII * crop_scale(geometry, seed_diameter)
    crops = []
    for pit in pits:
        half = radii * geometry.pit_radius * local_scale(geometry, pit) * scale
        x, y = geometry.to_image(np.array([geometry.centre_in_board(pit)]), scale)[0]
        corners = np.float32([[x - half, y - half], [x + half, y - half], [x - half, y + half]])
        warp = cv2.getAffineTransform(corners, np.float32([[0, 0], [CROP, 0], [0, CROP]]))
        crops.append(cv2.warpAffine(image, warp, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT))
    return np.array(crops, np.uint8).reshape(len(crops), CROP, CROP, 3)


def standardised(crops: np.ndarray) -> np.ndarray:
    """N x 3 x CROP x CROP floats, each crop's channels at mean 0 and spread 1: the lamp's colour
    and brightness say nothing about the count."""
    inputs = np.empty((len(crops), 3, *crops.shape[1:3]), np.float32)
    for index, crop in enumerate(crops):
        # OpenCV's mean and spread: 12 crops standardised in 0.65 ms, against 3.5 ms with NumPy's.
        mean, spread = (np.float32(v.ravel() / 255) for v in cv2.meanStdDev(crop))
        inputs[index] = np.transpose((crop.astype(np.float32) / 255 - mean) / (spread + np.float32(1e-3)), (2, 0, 1))
    return inputs


def count_probabilities(crops: np.ndarray, quarter_turns: tuple[int, ...]) -> np.ndarray:
    """N x classes: the network's probability of each count for each crop (the last class: that
    many or more), the mean of its readings of the crop turned each of these quarter turns."""
    inputs = standardised(crops)
    return np.mean([network_probabilities(_network(), turned(inputs, turns)) for turns in quarter_turns], axis=0)


def turned(inputs: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Standardised crops (N x 3 x CROP x CROP) turned this many quarters."""
    return np.ascontiguousarray(np.rot90(inputs, quarter_turns, axes=(2, 3)))


def network_probabilities(network: onnxruntime.InferenceSession, inputs: np.ndarray) -> np.ndarray:
    """N x classes: a network's probability of each count for each standardised crop as it lies."""
    # One batch: ONNX Runtime reads a crop in as much time alone as in a batch of 12.
    (logits,) = network.run(None, {network.get_inputs()[0].name: inputs})
    logits = np.asarray(logits, np.float64).reshape(len(inputs), -1)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def needs_network(posterior: np.ndarray, cues_miss_seeds: bool = False) -> bool:
    """Whether a pit's count posterior from the hand-made cues leaves a pile, doubt or a hidden
    seed for the network; on a board where the cues miss seeds (`WariProfile.cues_miss_seeds`),
    every pit does."""
    return (
        cues_miss_seeds
        or float(posterior[PILE_FROM:].sum()) > PILE_CHANCE
        or float(posterior.max()) < UNSURE_BELOW
        or int(np.argmax(posterior)) >= ASKED_FROM
    )


def looks_again(weighed: dict[int, float]) -> bool:
    """Whether a pit read at one quarter turn, its counts `weighed` with that reading, should be
    read at every one of QUARTER_TURNS: its likeliest count is still in doubt."""
    return max(weighed.values()) < LOOK_AGAIN_BELOW


def with_network(plausible: dict[int, float], probabilities: np.ndarray, adds: bool = False) -> dict[int, float]:
    """A region's plausible counts (from the hand-made cues) weighed again with the network's
    probabilities (raised to NETWORK_POWER), most likely first. The network may reorder them
    but, unless it `adds`, adds none but the one above: on a board unlike its renders it can be
    surely wrong (the synthetic boards' deep bowls), and the truth must stay in the distribution.
    Where the cues read at most HIDDEN_SEED_UP_TO, a seed they cannot see may hide under the others
    (`with_hidden_seed`). Where the cues are known to miss seeds (`WariProfile.cues_miss_seeds`), it
    adds the counts it gives ADDED_FROM or more, each at the chance of the least likely count."""
    if max(plausible, key=plausible.get) <= HIDDEN_SEED_UP_TO:
        plausible = with_hidden_seed(plausible)
    if adds:
        least = min(plausible.values())
        plausible = {**{int(n): least for n in np.flatnonzero(probabilities >= ADDED_FROM)}, **plausible}
    last = len(probabilities) - 1

    def likelihood(n: int) -> float:
        return probabilities[n] if n <= last else probabilities[last] * NETWORK_BEYOND_DECAY ** (n - last)

    joint = {n: p * (likelihood(n) + NETWORK_FLOOR) ** NETWORK_POWER for n, p in plausible.items()}
    total = sum(joint.values())
    return {n: float(weight / total) for n, weight in sorted(joint.items(), key=lambda item: -item[1])}


def with_hidden_seed(plausible: dict[int, float]) -> dict[int, float]:
    """Counts with one seed more hidden at HIDDEN_SEED_CHANCE: each count's chance shared with the
    count one above."""
    counts = set(plausible) | {n + 1 for n in plausible}
    return {
        n: (1 - HIDDEN_SEED_CHANCE) * plausible.get(n, 0.0) + HIDDEN_SEED_CHANCE * plausible.get(n - 1, 0.0)
        for n in counts
    }
