"""A learned counter of one pit's seeds: one more cue where seeds pile and hide each other.

A small convolutional network (benchmarks/wari_cnn_probe.py trains it on our own renders, never
on the bench, and exports it as ONNX) reads a crop around a pit, as it is and turned a quarter,
and gives a probability to each count. Recognition weighs with it the counts the hand-made cues find
plausible in the pits where piles have a chance or the cues are in doubt, and, at one look only,
in pits of 4 the cues are sure of; smaller counts the cues are sure of are left to them, at no
network time. OpenCV's dnn module runs it: no other
dependency.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.wari_board import BoardGeometry, local_scale

CROP = 64  # pixels a side
CROP_RADII = 1.2  # half the crop's side, in pit radii at the pit's own scale: the pit and a rim of board
NETWORK_FILE = Path(__file__).parent / "data" / "wari_pile_counter.onnx"
# The network learned from crops turned every way, so a crop turned a quarter is another look at
# the same pile, and its misreads differ from look to look: the mean of the two looks' readings
# (session 31; the session-30 network) read held-out renders' 8-12 91.2 % right against 90.3 %
# one look and 88.9 % for the session-28 and session-30 networks averaged (the two runs it
# replaced, at the same cost), and 17 more 8-12 pits of 520 over the bench's eight rows. All four
# quarter turns: 92.5 %, at twice the network time. The network now shipped is that one trained
# 4 more epochs on 60 more renders (session 31: held-out 8-12 92.5 %, 5 more bench pits), then 4
# more on 56 more (session 32: 94.1 %, 7 more bench pits).
QUARTER_TURNS = (0, 1)
# The network's say: pits where the hand-made cues give 5 or more seeds this much chance, its
# probabilities raised to this power. From 5, not 6 (session 31): the cues can be sure of a pit
# of 5 as 4, a seed hidden, and held-out renders' 4-7 read 97.0 % right, not 95.2 %, at 0.8-1.1
# more network pits a bench frame (median 30.4 -> 32.2 ms, S0); any chance from 0.1 to 0.5 gives
# the same figures (the cues' mass there is all or none; at 0.05 and from 6, a frame took 5 ms
# more for as many bench pits read right).
# The power gives the network about as much say as all the hand-made cues together. Its sure
# misreads set it a little under 1: at 1 the session-26 network read a pile of 10 as 9 at 0.94,
# which with a pit of 3 misread as 4 put the true position outside the tracker's margin (one
# false alarm in bench_tracker's 70 Wari moves); at 0.9 none, the same bench figures, held-out
# renders' 8-12 within 0.7 points. The session-24 network at 0.5 read the bench's piles 1-2 pits
# fewer right and held-out renders' 12-16 points fewer; at 1.5, S0's 4-7 fell from 99.3 to
# 97.9 %. Read at two quarter turns (session 31), 1.0-1.5 read the same pits right as 0.9,
# within 0.5 points.
PILE_FROM = 5
PILE_CHANCE = 0.3
# Pits whose likeliest count by the hand-made cues has less chance than this get the network's
# say too, whatever their size: the session-28 network reads small pits as well as the cues or
# better (held-out renders' 0-3 alone 100 %, cues 99.8 %), and where the cues hesitate it
# settles them (S0 seq017: a pit of 3 the cues read 4 at 0.79, the network 3 at 0.996). Run on
# every pit, 53 ms a frame. 0.9, not 0.8 (session 32): unseen plain nicker renders' 4-7 read
# 96.3 -> 97.1 % right (held-out training renders' 97.0 -> 97.1 %) for 0.28 more network pits
# a frame of S0 (0.02 of S1); the bench's figures are the same. 0.95 reads them 97.5 % for 1.14
# more on S0; PILE_FROM 4 instead, 97.1 % for about 1 more.
UNSURE_BELOW = 0.9
# Pits the cues give this many seeds or more (PILE_CHANCE), sure of the count, get one look
# (QUARTER_TURNS[0]), not all (session 33): the cues can be sure of a pit of 5 as 4, a seed hidden
# (over 142 training renders, pits read 4 at 0.90-0.97 hold 5 in 5.5 %). Held-out training
# renders' 4-7 read 97.9 -> 98.8 % right, unseen plain nicker renders' 97.1 -> 97.3 %, every other
# figure the same, for 0.7-1.0 more looks a bench frame (median CPU time S0 30.6-31.7 -> 31.6-32.2
# ms, S1 27.1-27.7 -> 28.2-29.2); asked at two looks (PILE_FROM 4), the same pits are read right
# at twice that cost.
GLANCE_FROM = 4
NETWORK_POWER = 0.9
# Counts past the network's last class, relative to it, halve per seed; no count is ruled out.
_BEYOND_DECAY = 0.5
_FLOOR = 1e-3


@lru_cache(maxsize=1)
def _network() -> cv2.dnn.Net:
    # OpenCV 5's default engine runs this network 1.7x slower than its classic one (2.60 against
    # 1.49 ms a crop, the same probabilities within 2e-5); OpenCV 4 has only the classic one.
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    if classic is None:
        return cv2.dnn.readNetFromONNX(str(NETWORK_FILE))
    return cv2.dnn.readNetFromONNX(str(NETWORK_FILE), engine=classic)


def pit_crops(image: np.ndarray, geometry: BoardGeometry, pits: list[int]) -> np.ndarray:
    """CROP x CROP crops (N x CROP x CROP x 3) centred on the given pits of a frame of any size."""
    scale = image.shape[1] / geometry.image_size[0]
    crops = []
    for pit in pits:
        half = CROP_RADII * geometry.pit_radius * local_scale(geometry, pit) * scale
        x, y = geometry.to_image(np.array([geometry.centre_in_board(pit)]), scale)[0]
        corners = np.float32([[x - half, y - half], [x + half, y - half], [x - half, y + half]])
        warp = cv2.getAffineTransform(corners, np.float32([[0, 0], [CROP, 0], [0, CROP]]))
        crops.append(cv2.warpAffine(image, warp, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT))
    return np.array(crops, np.uint8).reshape(len(crops), CROP, CROP, 3)


def standardised(crops: np.ndarray) -> np.ndarray:
    """N x 3 x CROP x CROP floats, each crop's channels at mean 0 and spread 1: the lamp's colour
    and brightness say nothing about the count."""
    values = crops.astype(np.float32) / 255
    mean, spread = values.mean(axis=(1, 2), keepdims=True), values.std(axis=(1, 2), keepdims=True) + 1e-3
    return np.ascontiguousarray(np.transpose((values - mean) / spread, (0, 3, 1, 2)))


def count_probabilities(crops: np.ndarray, looks: np.ndarray | None = None) -> np.ndarray:
    """N x classes: the network's probability of each count for each crop (the last class: that
    many or more), the mean over the crop's first `looks` (at least one) of QUARTER_TURNS, by
    default all of them."""
    inputs = standardised(crops)
    looks = np.full(len(crops), len(QUARTER_TURNS)) if looks is None else np.asarray(looks)
    total = _softmax(_run(_network(), turned(inputs, QUARTER_TURNS[0])))
    for look, turns in enumerate(QUARTER_TURNS[1:], start=1):
        again = np.flatnonzero(looks > look)
        if len(again):
            total[again] += _softmax(_run(_network(), turned(inputs[again], turns)))
    return total / looks[:, None]


def turned(inputs: np.ndarray, quarter_turns: int) -> np.ndarray:
    """Standardised crops (N x 3 x CROP x CROP) turned this many quarters."""
    return np.ascontiguousarray(np.rot90(inputs, quarter_turns, axes=(2, 3)))


def _run(network: cv2.dnn.Net, inputs: np.ndarray) -> np.ndarray:
    network.setInput(inputs)
    return network.forward().astype(np.float64)


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Each row of logits as probabilities."""
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def needs_network(posterior: np.ndarray) -> bool:
    """Whether a pit's count posterior from the hand-made cues leaves a pile, or doubt, for the network."""
    return float(posterior[PILE_FROM:].sum()) > PILE_CHANCE or float(posterior.max()) < UNSURE_BELOW


def looks_needed(posterior: np.ndarray) -> int:
    """How many of QUARTER_TURNS the network reads a pit at, by its count posterior from the
    hand-made cues: all for a pile or doubt, one for a sure count of GLANCE_FROM or more, none below."""
    if needs_network(posterior):
        return len(QUARTER_TURNS)
    return int(float(posterior[GLANCE_FROM:].sum()) > PILE_CHANCE)


def with_network(plausible: dict[int, float], probabilities: np.ndarray) -> dict[int, float]:
    """A region's plausible counts (from the hand-made cues) weighed again with the network's
    probabilities (raised to NETWORK_POWER), most likely first. The network may reorder them
    but adds none: on a board unlike its renders it can be surely wrong (the synthetic boards'
    deep bowls), and the truth must stay in the distribution."""
    last = len(probabilities) - 1

    def likelihood(n: int) -> float:
        return probabilities[n] if n <= last else probabilities[last] * _BEYOND_DECAY ** (n - last)

    joint = {n: p * (likelihood(n) + _FLOOR) ** NETWORK_POWER for n, p in plausible.items()}
    total = sum(joint.values())
    return {n: float(weight / total) for n, weight in sorted(joint.items(), key=lambda item: -item[1])}
