"""The compiled pixel labels (vision/varanasi_labels.c) are the plain numpy form's: the same
smoothing, distances to the colours and to the local board as numpy's matrix products give them
(BLAS's bits), the most likely label label by label (ties keep the earlier one), OTHER beyond the
label bar."""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.varanasi_colour import ColourModel, colour_moments
from vision.varanasi_params import LABEL_SIGMA, LABEL_SMOOTHING, LOCAL_BOARD_FLOOR, LOCAL_BOARD_SHARE, LOCAL_BORDER
from vision.varanasi_pixels import _local_board, pixel_labels
from vision.varanasi_scene import board_distance2, board_distance2_by_terms, board_terms, board_terms_of


def plain_local_board(smooth_lab: np.ndarray, board: dict):
    """The plain form of `_local_board`: the border's strips concatenated, numpy's distances,
    the board-like pixels' trimmed moments."""
    border = np.concatenate([
        smooth_lab[:LOCAL_BORDER].reshape(-1, 3), smooth_lab[-LOCAL_BORDER:].reshape(-1, 3),
        smooth_lab[:, :LOCAL_BORDER].reshape(-1, 3), smooth_lab[:, -LOCAL_BORDER:].reshape(-1, 3),
    ])
    board_like = border[board_distance2(border, board) <= LABEL_SIGMA ** 2]
    if len(board_like) < LOCAL_BOARD_SHARE * len(border):
        return board_terms(board)
    return board_terms_of(*colour_moments(board_like, LOCAL_BOARD_FLOOR))


def plain_pixel_labels(lab: np.ndarray, frame) -> np.ndarray:
    """The plain form: numpy's matrix products and one array per label."""
    smooth_image = cv2.blur(lab, (LABEL_SMOOTHING, LABEL_SMOOTHING))
    smooth = smooth_image.reshape(-1, 3)
    board_distances, board_log_norm = board_distance2_by_terms(smooth, plain_local_board(smooth_image, frame.board))
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


@pytest.mark.parametrize("seed", range(12))
def test_the_local_board_is_the_plain_ones(seed):
    # The border's board-like pixels, their trimming and moments: the same terms, bit for bit,
    # on crops of any size (borders wider than the crop included) and of bytes or floats.
    rng = np.random.default_rng(seed + 100)
    frame = random_frame(rng, 2)
    for _ in range(20):
        height, width = (int(v) for v in rng.integers(1, 40, 2))
        spread = rng.uniform(0.5, 20.0)
        lab = np.clip(np.asarray(frame.board["lab_mean"]) + rng.normal(size=(height, width, 3)) * spread, 0, 255)
        lab = lab.astype(np.float32) if seed % 2 else lab.astype(np.uint8)
        smooth = cv2.blur(lab, (LABEL_SMOOTHING, LABEL_SMOOTHING))
        ours, plain = _local_board(smooth, frame.board), plain_local_board(smooth, frame.board)
        assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(ours, plain))


def test_ties_keep_the_earlier_label():
    frame = random_frame(np.random.default_rng(7), 3, twins=True)
    lab = np.random.default_rng(8).uniform(0, 255, (60, 60, 3)).astype(np.float32)
    labels = pixel_labels(lab, frame)
    # The twins (labels 3-5) are never more likely than the colours they copy.
    assert not np.isin(labels, [3, 4, 5]).any()
    assert np.isin(labels, [0, 1, 2]).any()
