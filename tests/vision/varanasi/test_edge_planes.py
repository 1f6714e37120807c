"""The compiled colour edges (vision/varanasi_edges.c) are OpenCV's: the same Sobels of each Lab
plane, the strongest channel's kept, the first of equals; magnitudes correctly rounded."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.varanasi_geometry import edge_field, edge_planes


def opencv_edge_planes(lab_bytes: np.ndarray):
    """The plain form: OpenCV's Sobels, magnitudes, compares and masked copies, channel by channel."""
    planes = cv2.split(lab_bytes)
    best_gx = cv2.Sobel(planes[0], cv2.CV_32F, 1, 0, ksize=3)
    best_gy = cv2.Sobel(planes[0], cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(best_gx, best_gy)
    for plane in planes[1:]:
        gx = cv2.Sobel(plane, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(plane, cv2.CV_32F, 0, 1, ksize=3)
        strength = cv2.magnitude(gx, gy)
        stronger = cv2.compare(strength, magnitude, cv2.CMP_GT)
        cv2.copyTo(gx, stronger, best_gx)
        cv2.copyTo(gy, stronger, best_gy)
        cv2.max(magnitude, strength, magnitude)
    return best_gx, best_gy, magnitude


@pytest.fixture
def exact_opencv():
    """OpenCV without Intel's IPP, whose magnitude may be a last bit off the rounded square root."""
    was = cv2.ipp.useIPP()
    cv2.ipp.setUseIPP(False)
    yield
    cv2.ipp.setUseIPP(was)


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (9, 1), (2, 2), (3, 5), (37, 53), (160, 171)])
def test_edge_planes_are_opencv_s_bits(exact_opencv, shape):
    rng = np.random.default_rng(sum(shape))
    # Noise, flat patches (ties between channels) and hard steps (the largest gradients).
    lab = rng.integers(0, 256, (*shape, 3), dtype=np.uint8)
    lab[: shape[0] // 2, : shape[1] // 3] = 128
    lab[shape[0] // 2:, shape[1] // 2:, 0] = 255
    lab[shape[0] // 2:, : shape[1] // 2, 0] = 0
    for ours, theirs in zip(edge_planes(lab), opencv_edge_planes(lab)):
        assert ours.dtype == np.float32 and ours.shape == shape
        assert ours.tobytes() == theirs.tobytes()


def test_edge_planes_of_a_photo_crop_and_a_view_are_opencv_s(exact_opencv):
    rng = np.random.default_rng(5)
    image = cv2.GaussianBlur(rng.integers(0, 256, (120, 150, 3), dtype=np.uint8), (7, 7), 2.0)
    cv2.circle(image, (70, 60), 30, (40, 40, 200), -1)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    view = lab[10:100, 17:131]  # not contiguous: copied first
    for ours, theirs in zip(edge_planes(view), opencv_edge_planes(np.ascontiguousarray(view))):
        assert ours.tobytes() == theirs.tobytes()
    field = edge_field(image)
    for ours, theirs in zip((field.gx, field.gy, field.magnitude), opencv_edge_planes(lab)):
        assert ours.tobytes() == theirs.tobytes()

