"""The compiled pixel labels (vision/varanasi_labels.c) are the plain numpy form's: the same
smoothing, distances to the colours and to the local board as numpy's matrix products give them
(BLAS's bits), the most likely label label by label (ties keep the earlier one), OTHER beyond the
label bar."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.varanasi_colour import ColourModel
from vision.varanasi_params import LABEL_SIGMA, LABEL_SMOOTHING
from vision.varanasi_pixels import _local_board, pixel_labels
from vision.varanasi_scene import board_distance2_by_terms


def plain_pixel_labels(lab: np.ndarray, frame) -> np.ndarray:
    """The plain form: numpy's matrix products and one array per label."""
    smooth_image = cv2.blur(lab, (LABEL_SMOOTHING, LABEL_SMOOTHING))
    smooth = smooth_image.reshape(-1, 3)
    board_distances, board_log_norm = board_distance2_by_terms(smooth, _local_board(smooth_image, frame.board))
    distances = [*frame.colours.distances2(smooth), board_distances]
    log_norms = [*frame.colours.log_norms, np.float64(board_log_norm)]
    labels = np.zeros(len(distances[0]), dtype=np.uint8)
    best = log_norms[0] - 0.5 * distances[0]
    for index in range(1, len(distances)):
        score = log_norms[index] - 0.5 * distances[index]
        np.copyto(labels, np.uint8(index), where=score > best)
        np.maximum(best, score, out=best)
    labels[np.minimum.reduce(distances) > LABEL_SIGMA ** 2] = len(frame.colours.names) + 1
    return labels.reshape(lab.shape[:2])


def random_frame(rng: np.random.Generator, colours: int, twins: bool = False):
    """Colour models and a board of random means and covariances; with `twins`, every colour
    twice over (equal likelihoods everywhere: ties)."""
    models = {}
    for index in range(colours):
        spread = rng.normal(size=(3, 3)) * rng.uniform(1.0, 6.0)
        models[f"c{index}"] = {"lab_mean": rng.uniform(30, 230, 3).tolist(),
                               "lab_covariance": (spread @ spread.T + 4.0 * np.eye(3)).tolist(),
                               "hint_srgb": [128, 128, 128]}
    if twins:
        models.update({f"{name}'": model for name, model in list(models.items())})
    spread = rng.normal(size=(3, 3)) * rng.uniform(1.0, 4.0)
    board = {"lab_mean": rng.uniform(60, 200, 3).tolist(), "lab_covariance": (spread @ spread.T + 4.0 * np.eye(3)).tolist()}
    return SimpleNamespace(colours=ColourModel.from_profile(models), board=board)


@pytest.mark.parametrize("seed", range(24))
def test_pixel_labels_are_numpys(seed):
    rng = np.random.default_rng(seed)
    frame = random_frame(rng, int(rng.integers(1, 9)), twins=seed % 6 == 5)
    height, width = (int(v) for v in rng.integers(1, 120, 2))
    # Pixels near the colours and the board, so that every label (and the bar) is met; a crop of
    # bytes (smoothed to bytes) or the frame's float32 Lab (smoothed to fractions).
    means = np.array([frame.colours.means[i] for i in range(len(frame.colours.names))] + [frame.board["lab_mean"]])
    near = means[rng.integers(0, len(means), (height, width))] + rng.normal(size=(height, width, 3)) * rng.uniform(1, 12)
    lab = np.clip(near, 0, 255).astype(np.uint8)
    if seed % 2:
        lab = lab.astype(np.float32)
    if seed % 4 == 3:  # a border of board, so that the local board is measured there
        lab[:2], lab[-2:], lab[:, :2], lab[:, -2:] = (np.asarray(frame.board["lab_mean"]).astype(lab.dtype),) * 4
    ours, theirs = pixel_labels(lab, frame), plain_pixel_labels(lab, frame)
    assert ours.dtype == np.uint8 and ours.shape == lab.shape[:2]
    assert np.array_equal(ours, theirs)


def test_a_single_pixel_is_labelled_as_numpy_labels_it():
    # One pixel's board distance is summed by OpenBLAS's dot product (in double), not by a
    # product of several rows: the pass follows it there too.
    rng = np.random.default_rng(11)
    for _ in range(200):
        frame = random_frame(rng, int(rng.integers(1, 7)))
        lab = rng.uniform(0, 255, (1, 1, 3)).astype(np.float32)
        assert np.array_equal(pixel_labels(lab, frame), plain_pixel_labels(lab, frame))


def test_ties_keep_the_earlier_label():
    frame = random_frame(np.random.default_rng(7), 3, twins=True)
    lab = np.random.default_rng(8).uniform(0, 255, (60, 60, 3)).astype(np.float32)
    labels = pixel_labels(lab, frame)
    # The twins (labels 3-5) are never more likely than the colours they copy.
    assert not np.isin(labels, [3, 4, 5]).any()
    assert np.isin(labels, [0, 1, 2]).any()
