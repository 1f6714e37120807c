"""Fast forms in Varanasi recognition keep every value: votes, labels, footprints, colour
distances and board checks each against the plain form it replaces, and work done once that would
otherwise be repeated. (The rim tests: test_fast_rim_tests.py; pixel labels:
test_pixel_labels.py.)"""
from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from device.synthetic_varanasi import render_table
from tests.vision.varanasi.frames import STANDARD
from vision.varanasi_colour import ColourModel
from vision.varanasi_disc_colours import _colour_probabilities
from vision.varanasi_geometry import ScaleField, edge_field, median_of_many, to_full, to_work
from vision.varanasi_observation import DiscReading, TowerReading
from vision.varanasi_params import BOARD_SIGMA, CELL_SIDE, FACE_NOISE_SAMPLING, VOTE_WEIGHT
from vision.varanasi_pieces import PieceSet
from vision.varanasi_pixels import chromaticity_noise, component_near, fill_holes
from vision.varanasi_profile import chromaticity
from vision.varanasi_scene import board_distance2, board_like_grid, whitening_of
from vision.varanasi_votes import (
    centre_vote_peaks,
    centre_votes,
    points_over,
    radius_maps,
    smoothed_vote_planes,
)


def test_radius_maps_are_stored_pixel_by_pixel_with_the_same_values():
    # Votes gather every size's radius at a strong pixel in one memory row (see `_radius_maps`).
    scale = ScaleField(3.1, 2e-4, -1e-4)
    radii_mm = (12.5, 17.5, 22.5, 27.5)
    maps = radius_maps((48, 64), scale, radii_mm)
    assert maps.shape == (4, 48, 64)
    assert maps.transpose(1, 2, 0).flags.c_contiguous
    ys, xs = np.mgrid[0:48, 0:64].astype(np.float32)
    px_per_mm = scale.at(to_full(xs), to_full(ys))
    expected = np.array([to_work(px_per_mm * r) for r in radii_mm], dtype=np.float32)
    assert np.array_equal(maps, expected)


def test_vote_peaks_are_python_numbers():
    # The recogniser compares peaks one by one, which costs several times more on numpy scalars.
    image = np.full((240, 320, 3), 180, dtype=np.uint8)
    cv2.circle(image, (160, 120), 40, (40, 40, 200), -1)
    edges = edge_field(image)
    peaks = centre_vote_peaks(edges, radius_maps(edges.shape, ScaleField(2.0), (40.0,)), 0.01)
    assert peaks
    for votes, x, y, radius in peaks:
        assert type(votes) is float and type(x) is int and type(y) is int and type(radius) is float
    best = max(peaks)
    assert abs(best[1] - 160) <= 1 and abs(best[2] - 120) <= 1


def test_centre_votes_plane_by_plane_are_the_whole_planes_votes():
    # Votes are counted, smoothed and used a plane at a time (one buffer, kept in cache).
    image = np.full((120, 160, 3), 170, dtype=np.uint8)
    cv2.circle(image, (70, 60), 25, (30, 160, 60), -1)
    cv2.circle(image, (120, 50), 15, (200, 40, 40), -1)
    edges = edge_field(image)
    radii = radius_maps(edges.shape, ScaleField(2.0, 1e-3, 0.0), (15.0, 25.0))
    votes = centre_votes(edges, radii)
    for bar in (0.005, 0.02):
        for value, x, y, radius in centre_vote_peaks(edges, radii, bar):
            plane = [float(r) for r in radii[:, y, x]].index(radius)
            assert value == float(votes[plane, y, x]) and value > np.float32(bar)
            around = votes[plane, max(0, y - 2): y + 3, max(0, x - 2): x + 3]
            assert value >= around.max()
    # One buffer, overwritten plane by plane: four whole planes (5 MB a frame) fall out of cache.
    planes = smoothed_vote_planes(edges, radii)
    first = next(planes)
    counts = first.copy()
    assert next(planes) is first
    assert np.array_equal(counts / radii[0] / np.float32(VOTE_WEIGHT), votes[0])


def test_vote_peaks_are_every_local_maximum_over_the_bar_of_the_whole_planes():
    # The peaks, found from candidates over a bound, are exactly the pixels of `centre_votes`
    # over the bar and not below any pixel of their 5x5 neighbourhood (clipped to the frame),
    # discs touching the frame's edge included.
    image = np.full((120, 160, 3), 170, dtype=np.uint8)
    cv2.circle(image, (70, 60), 25, (30, 160, 60), -1)
    cv2.circle(image, (120, 50), 15, (200, 40, 40), -1)
    cv2.circle(image, (8, 110), 14, (40, 40, 200), -1)
    cv2.circle(image, (152, 4), 20, (200, 200, 40), -1)
    edges = edge_field(image)
    radii = radius_maps(edges.shape, ScaleField(2.0, 1e-3, 0.0), (15.0, 20.0, 25.0))
    votes = centre_votes(edges, radii)
    height, width = edges.shape
    for bar in (0.002, 0.005, 0.02, 0.05):
        expected = []
        for plane, plane_votes in enumerate(votes):
            for y, x in zip(*np.nonzero(plane_votes > np.float32(bar))):
                around = plane_votes[max(0, y - 2): y + 3, max(0, x - 2): x + 3]
                if plane_votes[y, x] >= around.max():
                    expected.append((float(plane_votes[y, x]), int(x), int(y), float(radii[plane, y, x])))
        assert sorted(centre_vote_peaks(edges, radii, bar)) == sorted(expected)
        assert expected or bar == 0.05


@pytest.mark.parametrize("share", [0.0, 0.0005, 0.01, 0.2])
@pytest.mark.parametrize("bar", [0.1, float(np.float32(0.1)), 0.09999999, 0.1000000001, 12.0])
def test_points_over_a_bar_are_what_opencv_lists(share, bar):
    # Strong edge pixels and vote candidates listed by numpy, as OpenCV's compare (in float32)
    # and `findNonZero` listed them: values just around the bar and its float32 rounding.
    rng = np.random.default_rng(3)
    near = np.array([np.float32(bar), np.nextafter(np.float32(bar), np.float32(0)),
                     np.nextafter(np.float32(bar), np.float32(np.inf)), bar * 0.999, bar * 1.001], dtype=np.float32)
    plane = np.where(rng.random((48, 64)) < share, rng.choice(near, (48, 64)), rng.random((48, 64)) * bar * 0.9)
    plane = plane.astype(np.float32)
    ys, xs = np.divmod(points_over(plane, bar), plane.shape[1])
    points = cv2.findNonZero(cv2.compare(plane, bar, cv2.CMP_GT))
    expected = points.reshape(-1, 2).T if points is not None else np.zeros((2, 0))
    assert np.array_equal(xs, expected[0]) and np.array_equal(ys, expected[1])


@pytest.mark.parametrize("shape", [(120, 160), (121, 161), (1, 1), (2, 3), (16, 320)])
def test_median_of_many_is_numpys_median(shape):
    # The edge thresholds' median by one partition: the same float32 value as `np.median`, on
    # strided samples, with ties, and with middle values whose float32 sum rounds.
    rng = np.random.default_rng(6)
    for scale in (1.0, 3e4, 1e7):
        planes = [rng.random((2 * shape[0], 2 * shape[1])) * scale,
                  rng.integers(0, 5, (2 * shape[0], 2 * shape[1])) * scale]
        for plane in planes:
            sampled = np.sqrt(plane.astype(np.float32))[::2, ::2]
            median = median_of_many(sampled)
            assert median == np.median(sampled) and median.dtype == np.float32


def test_settling_without_a_colour_claimed_twice_needs_no_assignment(monkeypatch):
    # Each disc's cheapest colour is its own and no other disc's: the least-cost assignment
    # is that one, and `assign` is not needed to find it.
    import vision.varanasi_disc_colours as varanasi

    pieces = PieceSet.from_json({**STANDARD, "colours": {"white": {"srgb": [235, 235, 228]},
                                                         "red": {"srgb": [200, 35, 40]}}})

    def tower(x, presence, colours):
        return TowerReading((DiscReading(4, (x, 100.0), 50.0, presence, colours, colours[0][0]),))

    towers = (tower(100, 0.99, (("white", 0.6), ("red", 0.4))), tower(300, 0.7, (("red", 0.55), ("white", 0.45))),
              tower(500, 0.3, (("white", 1.0), ("red", 0.0))))

    def no_assignment(cost):
        raise AssertionError("assignment computed")

    monkeypatch.setattr(varanasi, "assign", no_assignment)
    settled = varanasi.settle_colours(towers, pieces)
    assert settled == towers
    # A colour claimed twice still goes to the assignment.
    with pytest.raises(AssertionError, match="assignment computed"):
        varanasi.settle_colours(towers[:2] + (tower(500, 0.6, (("red", 0.9), ("white", 0.1))),), pieces)


@pytest.mark.parametrize("face_shift, footprints_per_face", [(0.0, 1), (1.0, 2)])
def test_the_footprint_above_a_disc_is_taken_again_only_when_its_face_moved(profile, monkeypatch, face_shift,
                                                                            footprints_per_face):
    # No face fitted leaves the outline's centre, whose footprint is the one already taken.
    import vision.varanasi as varanasi
    import vision.varanasi_colour_chain as colour_chain

    image = render_table([["4green", "2yellow"]], STANDARD, seed=1, centres_px=[(640, 480)], max_offset_mm=0)
    calls = {"faces": 0, "footprints": 0}
    footprint_on = colour_chain.footprint_on

    def face_centre(edges, labels, colour, no_colour, centre, radius, reach):
        calls["faces"] += 1
        return np.asarray(centre, dtype=float) + face_shift

    def counted_footprint(*args):
        calls["footprints"] += 1
        return footprint_on(*args)

    monkeypatch.setattr(colour_chain, "face_centre", face_centre)
    monkeypatch.setattr(colour_chain, "footprint_on", counted_footprint)
    varanasi.recognize(image, profile)
    assert calls["faces"] >= 1
    # One more for the top disc, on which nothing shows.
    assert calls["faces"] == 1
    assert calls["footprints"] == footprints_per_face + 1


def test_filled_holes_are_the_mask_and_what_it_encloses():

    mask = np.zeros((12, 14), dtype=np.uint8)
    mask[2:9, 2:9] = 1
    mask[4:7, 4:7] = 0  # a hole
    mask[0:3, 11:14] = 1  # a part on the border, open to it
    mask[0, 12] = 0  # enclosed on three sides, the fourth the border: outside
    filled = fill_holes(mask)
    expected = mask.copy()
    expected[4:7, 4:7] = 1
    assert filled.dtype == np.uint8 and np.array_equal(filled, expected)


def test_rings_weighed_together_are_weighed_as_alone():
    # A tower's rings are weighed in one call (`_colour_probabilities`), with glare allowed for:
    # each ring's probabilities are those it gets alone, to the last bit, hidden rings flat.
    colours = {
        "red": {"lab_mean": [120.0, 170.0, 150.0], "lab_covariance": [[30, 2, 1], [2, 20, 3], [1, 3, 25]],
                "hint_srgb": [200, 35, 40]},
        "blue": {"lab_mean": [90.0, 140.0, 90.0], "lab_covariance": [[25, 1, 2], [1, 15, 2], [2, 2, 20]],
                 "hint_srgb": [40, 60, 190]},
        "white": {"lab_mean": [230.0, 128.0, 131.0], "lab_covariance": [[40, 1, 0], [1, 9, 1], [0, 1, 9]],
                  "hint_srgb": [235, 235, 228]},
    }
    model = ColourModel.from_profile(colours, tinted_greys=True, glare=True)
    rng = np.random.default_rng(6)
    for _ in range(300):
        rings = [None if rng.random() < 0.15 else (rng.integers(0, 511, 3) / 2).astype(np.float32)
                 for _ in range(int(rng.integers(1, 6)))]
        together = _colour_probabilities(rings, model)
        for ring, weighed in zip(rings, together):
            if ring is None:
                assert np.array_equal(weighed, np.full(3, 1 / 3))
                continue
            alone = model.log_likelihoods(ring)[0]
            weights = np.exp(alone - alone.max())
            assert weighed.tobytes() == (weights / weights.sum()).tobytes()


def _plain_face_edge_fit(edges, labels, colour, no_colour, centre, radius, reach):
    """`_face_edge_fit` in numpy: every ray's samples as arrays, edges and peaks by argmax."""
    from vision.varanasi_colour_chain import trimmed_face_circle
    from vision.varanasi_params import COLOURED_SHARE, EDGE_STRICTNESS, RIM_ANGLES

    angles = np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)
    cos, sin = np.cos(angles)[:, None], np.sin(angles)[:, None]
    steps = np.arange(radius - reach - 2.0, radius + reach + 2.5, 0.5)
    height, width = labels.shape
    xs, ys = np.rint(centre[0] + cos * steps), np.rint(centre[1] + sin * steps)
    inside = ((xs[:, [0, -1]] >= 0) & (ys[:, [0, -1]] >= 0) & (xs[:, [0, -1]] < width) & (ys[:, [0, -1]] < height)).all(axis=1)
    flat = (np.clip(ys, 0, height - 1) * width + np.clip(xs, 0, width - 1)).astype(np.intp)
    start = labels.reshape(-1).take(flat[:, 0])
    on_face = start == colour
    if np.count_nonzero(on_face) < COLOURED_SHARE * np.count_nonzero(on_face | (start == no_colour)):
        on_face |= start == no_colour
    least = RIM_ANGLES // 2
    rays = np.flatnonzero(on_face & inside)
    if len(rays) < least:
        return None
    flat, cos, sin = flat[rays], cos[rays], sin[rays]
    radial = np.abs(edges.gx.reshape(-1).take(flat) * cos + edges.gy.reshape(-1).take(flat) * sin)
    edge = radial >= edges.rim_floor(EDGE_STRICTNESS).take(flat)
    first = np.argmax(edge, axis=1)
    falls = np.ones(radial.shape, dtype=bool)
    np.less(radial[:, 1:], radial[:, :-1], out=falls[:, :-1])
    peak = np.argmax(falls & (np.arange(len(steps))[None, :] >= first[:, None]), axis=1)
    distance = steps[peak]
    points = np.stack([centre[0] + cos[:, 0] * distance, centre[1] + sin[:, 0] * distance], axis=1)[edge.any(axis=1)]
    if len(points) < least:
        return None
    return trimmed_face_circle(points, centre, radius, reach, least)


@pytest.mark.parametrize("seed", range(6))
def test_face_edges_are_the_plain_numpy_ones(seed):
    # The rays of `_face_edge_fit` are one compiled pass (vision/varanasi_rings.c): the face it
    # fits, or none, is the plain form's to the last bit, faces near the crop's edge included.
    from vision.varanasi_colour_chain import _face_edge_fit

    rng = np.random.default_rng(seed)
    image = np.clip(rng.normal(170, 4, (120, 140, 3)), 0, 255).astype(np.uint8)
    fitted = 0
    for _ in range(20):
        centre = rng.uniform(-10, 150, 2) if rng.random() < 0.2 else rng.uniform(35, 105, 2)
        radius, reach = float(rng.uniform(12, 30)), float(rng.uniform(2, 8))
        face = image.copy()
        cv2.circle(face, (int(centre[0] + rng.uniform(-3, 3)), int(centre[1] + rng.uniform(-3, 3))), int(radius),
                   tuple(int(v) for v in rng.integers(20, 230, 3)), -1)
        edges = edge_field(np.clip(face + rng.normal(0, 3, face.shape), 0, 255).astype(np.uint8), 8.0)
        labels = rng.choice(np.array([0, 2, 3], dtype=np.uint8), edges.shape, p=[0.2, 0.5, 0.3])
        cv2.circle(labels, (int(centre[0]), int(centre[1])), int(radius - reach), int(rng.choice([2, 3])), -1)
        ours = _face_edge_fit(edges, labels, 2, 3, centre, radius, reach)
        plain = _plain_face_edge_fit(edges, labels, 2, 3, centre, radius, reach)
        assert (ours is None) == (plain is None)
        if ours is not None:
            fitted += 1
            assert ours.tobytes() == plain.tobytes()
    assert fitted


def test_colour_distances_come_a_row_per_colour():
    # A crop's labels are chosen colour by colour: rows, not strided columns.
    colours = {
        "red": {"lab_mean": [120.0, 170.0, 150.0], "lab_covariance": [[30, 2, 1], [2, 20, 3], [1, 3, 25]],
                "hint_srgb": [200, 35, 40]},
        "white": {"lab_mean": [230.0, 128.0, 131.0], "lab_covariance": [[40, 1, 0], [1, 9, 1], [0, 1, 9]],
                  "hint_srgb": [235, 235, 228]},
    }
    model = ColourModel.from_profile(colours)
    lab = np.random.default_rng(2).uniform(0, 255, (500, 3)).astype(np.float32)
    distances = model.distances2(lab)
    assert distances.shape == (2, 500) and distances.flags.c_contiguous
    for index, row in enumerate(distances):
        whitened = (lab.astype(float) - model.means[index]) @ model.whitening[:, 3 * index: 3 * index + 3]
        assert np.allclose(row, (whitened ** 2).sum(axis=1), rtol=1e-4, atol=1e-3)
    assert np.array_equal(model.log_likelihoods(lab), model.log_norms[None, :] - 0.5 * distances.T)


def test_written_out_whitening_is_numpys_cholesky_of_the_inverse_and_the_determinant_its():

    rng = np.random.default_rng(4)
    for _ in range(2000):
        pixels = rng.normal(size=(40, 3)) * rng.uniform(0.3, 6.0, 3) + rng.normal(size=3)
        covariance = np.cov(pixels.T) + np.eye(3)
        covariance[0, :] *= 4.0
        covariance[:, 0] *= 4.0
        whitening, determinant = whitening_of(covariance)
        assert np.array_equal(whitening, np.linalg.cholesky(np.linalg.inv(covariance)).astype(np.float32))
        assert determinant == pytest.approx(np.linalg.det(covariance), rel=1e-12)


def test_a_footprint_of_one_part_near_the_point_is_its_own_component():
    # About three footprints in four are one part: no comparison over the labelling is needed.
    mask = np.zeros((30, 40), dtype=np.uint8)
    mask[5:15, 5:15] = 1
    assert component_near(mask, (10.0, 10.0), 3.0) is mask
    assert component_near(mask, (30.0, 25.0), 3.0) is None
    mask[20:28, 25:38] = 1  # a bigger part, farther off
    near = component_near(mask, (10.0, 10.0), 3.0)
    assert near.dtype == np.uint8 and near.sum() == 100 and near[5:15, 5:15].all()
    assert component_near(mask, (20.0, 20.0), 12.0).sum() == 8 * 13  # both near: the bigger


@pytest.mark.parametrize("grid", [(40, 30), (16, 12), (7, 5)])
def test_board_like_cells_are_those_mostly_board_as_the_mean_said(grid):
    # Cells counted by two one-axis sums of bytes: the same cells as the mean of their samples
    # at least one half, with cells near half board (7 to 9 of 16 samples) in plenty.
    board = {"lab_mean": [200.0, 130.0, 140.0], "lab_covariance": [[20.0, 1.0, 0.0], [1.0, 4.0, 0.5], [0.0, 0.5, 4.0]]}
    cols, rows = grid
    rng = np.random.default_rng(7)
    for share in (0.3, 0.5, 0.7):
        samples = np.where(rng.random((rows * CELL_SIDE, cols * CELL_SIDE, 1)) < share, [[200.0, 130.0, 140.0]],
                           [[90.0, 160.0, 100.0]]).astype(np.float32)
        lab = cv2.resize(samples, (cols * CELL_SIDE * 3, rows * CELL_SIDE * 3), interpolation=cv2.INTER_NEAREST)
        small = cv2.resize(lab, (cols * CELL_SIDE, rows * CELL_SIDE), interpolation=cv2.INTER_AREA).reshape(-1, 3)
        close = (board_distance2(small, board) <= BOARD_SIGMA ** 2).reshape(rows, CELL_SIDE, cols, CELL_SIDE)
        expected = close.mean(axis=(1, 3)) >= 0.5
        assert np.array_equal(board_like_grid(lab, board, grid), expected)
        assert close.sum(axis=(1, 3)).min() < 8 <= close.sum(axis=(1, 3)).max()


def test_vote_peaks_on_plateaus_are_the_5x5_local_maxima(monkeypatch):
    # The compiled pass over a plane finds the same peaks as the whole neighbourhood of every
    # pixel over the bar, ties (plateaus of equal counts) and the frame's edges included, in row
    # order a plane, plane after plane.
    import vision.varanasi_votes as geometry

    rng = np.random.default_rng(8)
    height, width = 40, 56
    # Smooth hills of whole counts (ties on their slopes), with a plateau on top of one.
    planes = [np.round(cv2.GaussianBlur(rng.random((height, width)), (0, 0), 3) * 400).astype(np.float32)
              for _ in range(2)]
    planes[1][10:13, 20:24] = planes[1].max() + 5
    radii = np.stack([np.full((height, width), 10.0, dtype=np.float32),
                      (10.0 + rng.random((height, width))).astype(np.float32)])
    edges = type("Edges", (), {"shape": (height, width)})()
    monkeypatch.setattr(geometry, "smoothed_vote_planes", lambda edges, radii: iter(planes))
    for bar in (0.0, 0.5, 2.0):
        expected = []
        for plane, (counts, radius_map) in enumerate(zip(planes, radii)):
            votes = counts / radius_map
            votes /= VOTE_WEIGHT
            for y, x in zip(*np.nonzero(votes > np.float32(bar))):
                if votes[y, x] >= votes[max(0, y - 2): y + 3, max(0, x - 2): x + 3].max():
                    expected.append((float(votes[y, x]), int(x), int(y), float(radius_map[y, x])))
        assert centre_vote_peaks(edges, radii, bar) == expected
        assert expected


def test_the_drawn_line_test_reads_the_crop_s_board_once_per_tower(monkeypatch):
    # Every size and round of a tower's edge tests asks the drawn-line test of the same crop:
    # its board's median, noise and smoothed Lab are read once, the values the plain forms give.
    import vision.varanasi_edge_context as varanasi

    rng = np.random.default_rng(3)
    image = np.clip(rng.normal(180, 6, (90, 110, 3)), 0, 255).astype(np.uint8)
    cv2.circle(image, (55, 45), 25, (40, 60, 200), -1)
    edges = edge_field(image, 20.0)
    board = 3
    labels = np.where(rng.random(edges.shape) < 0.7, board, rng.integers(0, 5, edges.shape)).astype(np.uint8)
    frame = SimpleNamespace(colours=SimpleNamespace(names=("red", "green", "blue")))
    context = varanasi.EdgeContext(edges, labels, frame, np.array([55.0, 45.0]), {}, 10.0, 8.0, 5.0, ())
    calls = {"medians": 0, "noises": 0}
    median, noise = varanasi.masked_median, varanasi.chromaticity_noise

    def counted(name, function):
        def call(*args):
            calls[name] += 1
            return function(*args)
        return call

    monkeypatch.setattr(varanasi, "masked_median", counted("medians", median))
    monkeypatch.setattr(varanasi, "chromaticity_noise", counted("noises", noise))
    for _ in range(3):
        mask = (labels == board).view(np.uint8)
        assert np.array_equal(context.board_mask, mask)
        assert np.array_equal(context.board_lab, median(edges.lab_bytes, mask))
        assert context.board_noise == noise(edges.lab_bytes, mask)
        assert np.array_equal(context.smooth_lab, cv2.blur(edges.lab_bytes, (3, 3)).astype(np.float32))
    assert calls == {"medians": 1, "noises": 1}


@pytest.mark.parametrize("share", [0.02, 0.5, 0.97])
def test_chromaticity_noise_samples_every_third_pixel_of_the_mask_in_row_order(share):
    # Gathered by flat index instead of a boolean mask over the three channels: the same pixels.
    rng = np.random.default_rng(4)
    lab = rng.integers(60, 200, (70, 90, 3)).astype(np.uint8)
    mask = (rng.random((70, 90)) < share).astype(np.uint8)
    shares = chromaticity(lab[mask.astype(bool)][::FACE_NOISE_SAMPLING].astype(np.float64))
    spread = np.abs(shares - np.median(shares, axis=0)).sum(axis=1)
    assert chromaticity_noise(lab, mask) == 1.4826 * float(np.median(spread))


def test_seeds_are_compared_with_each_tower_s_bottom_circle_taken_once(profile, monkeypatch):
    # Every seed is compared with every tower read before it (about 70 comparisons a frame): each
    # tower's bottom circle is taken once, when it is read, not again for each seed.
    import vision.varanasi as varanasi

    image = np.full((960, 1280, 3), 200, np.uint8)
    # Strong peaks 30 px apart along a row; a tower read at one covers the next (radius 40).
    peaks = [(100.0 + 30.0 * i, 300.0, 10.0) for i in range(12)]
    monkeypatch.setattr(varanasi, "vote_peaks", lambda edges, frame: (peaks, []))
    read = []

    def read_tower(image_bgr, work_lab, frame, seed, threshold, outlines, all_peaks):
        read.append((tuple(seed), outlines))
        disc = DiscReading(4, (float(seed[0]), float(seed[1])), 40.0, 0.9, (("red", 1.0),), "red")
        return TowerReading((disc,))

    monkeypatch.setattr(varanasi, "read_tower", read_tower)
    monkeypatch.setattr(varanasi, "settle_colours", lambda towers, pieces: towers)
    taken = {"discs": 0}
    discs = TowerReading.discs

    def counted(tower):
        taken["discs"] += 1
        return discs.fget(tower)

    monkeypatch.setattr(TowerReading, "discs", property(counted))
    observation = varanasi.recognize(image, profile)
    # `_seeds` keeps peaks 30 px apart (each peak's circle is 10 px); seeds inside a tower's 40 px
    # are skipped: every other one is read.
    assert [seed for seed, _ in read] == [(100.0 + 60.0 * i, 300.0) for i in range(6)]
    assert [outlines for _, outlines in read] == [tuple((100.0 + 60.0 * j, 300.0, 40.0) for j in range(i))
                                                  for i in range(6)]
    assert len(observation.towers) == 6
    # Once per tower read, and once more by the scene check (with every seed compared: 108).
    assert taken["discs"] == 2 * len(observation.towers)
