"""The rim tests' fast forms (the compiled inner loop of vision/varanasi_rims.py among them) give
the plain numpy forms' values bit for bit (floats compared as bytes)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.varanasi_circles import (
    best_circles,
    best_circles_and_grid_points,
    best_index,
    circles_beyond,
    disc_of_points,
    disc_offsets,
    rim_hits,
    rim_scores_of_groups,
    rims_to_exclude,
)
from vision.varanasi_geometry import DarkLine, edge_field
from vision.varanasi_params import RIM_ANGLES, VALLEY_ARC_EASING, VALLEY_LEAST_DEPTH

_ANGLES = np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)
_COS32, _SIN32 = np.cos(_ANGLES).astype(np.float32), np.sin(_ANGLES).astype(np.float32)


def _plain_rim_scores(edges, circles, exclude, gap, strictness, valley, whole_circle=False, scattered=False, hits_only=False):
    """Rim scores worked out plainly in numpy: every sample's five offsets gathered, the known rims'
    annuli and the shares each from the rims given, the arcs' means of float32 lightness divided
    before their minima."""
    flats, insides, rounded = [], [], []
    for centres, radius in circles:
        centres = np.rint(np.atleast_2d(np.asarray(centres, dtype=float))).astype(np.intp)
        height, width = edges.shape
        radii = int(round(radius * 4)) / 4.0 + np.array([-4.0, -1.0, 0.0, 1.0, 4.0])
        dx = np.rint(radii[None, :] * np.cos(_ANGLES)[:, None]).astype(np.intp)
        dy = np.rint(radii[None, :] * np.sin(_ANGLES)[:, None]).astype(np.intp)
        ys, xs = centres[:, 1, None, None] + dy, centres[:, 0, None, None] + dx
        insides.append(((xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)).all(axis=2))
        flats.append(np.clip(ys, 0, height - 1) * width + np.clip(xs, 0, width - 1))
        rounded.append(centres)
    flat, judged, centres = np.concatenate(flats), np.concatenate(insides), np.concatenate(rounded)
    gx, gy = edges.gx.reshape(-1), edges.gy.reshape(-1)
    if valley is not None:
        sharpness = np.abs(gx[flat[..., 2]] * _COS32 + gy[flat[..., 2]] * _SIN32)
        lightness = edges.lab_bytes[..., 0].astype(np.float32).reshape(-1)[flat]
        wrapped = np.concatenate([lightness[:, -1:], lightness, lightness[:, :1]], axis=1)
        lightness = (wrapped[:, :-2] + lightness + wrapped[:, 2:]) / np.float32(3.0)
        sides = np.minimum(lightness[..., 0], lightness[..., 4])
        sides -= np.float32(max(valley.depth / VALLEY_ARC_EASING, VALLEY_LEAST_DEPTH))
        hits = lightness[..., 1:4].min(axis=2) < sides
        hits &= valley.allowed[valley.labels.reshape(-1)[flat[..., 4]]]
    else:
        band = flat[..., 1:4]
        radial = np.abs(gx[band] * _COS32[:, None] + gy[band] * _SIN32[:, None])
        hits = (radial >= edges.rim_floor(strictness)[band]).any(axis=2)
        sharpness = radial[..., 1]
    if exclude:
        radii = np.repeat(np.array([radius for _, radius in circles], dtype=np.float32), [len(c) for c in rounded])
        rim_x = centres[:, 0, None].astype(np.float32) + radii[:, None] * _COS32
        rim_y = centres[:, 1, None].astype(np.float32) + radii[:, None] * _SIN32
        known = np.asarray(exclude, dtype=np.float32)[:, :, None, None]
        distance2 = (rim_x - known[:, 0]) ** 2 + (rim_y - known[:, 1]) ** 2
        outside = distance2 > (known[:, 2] + gap) ** 2
        within = distance2 < np.maximum(known[:, 2] - gap, 0.0) ** 2
        judged &= (outside | within).all(axis=0)
    hits &= judged
    # Runs of five directions around the circle for a dark line, of three for a rim.
    shifts = range(-2, 3) if valley is not None else range(-1, 2)
    middles = np.all([np.roll(hits, shift, axis=1) for shift in shifts], axis=0)
    counted = np.any([np.roll(middles, shift, axis=1) for shift in shifts], axis=0)
    if hits_only:
        return counted

    def shares(hits):
        if whole_circle:
            return hits.sum(axis=1) / np.float64(RIM_ANGLES), (sharpness * judged).sum(axis=1) / np.float64(RIM_ANGLES)
        shown = judged.sum(axis=1)
        coverage = hits.sum(axis=1) / np.maximum(shown, 1)
        sharp = (sharpness * judged).sum(axis=1) / np.maximum(shown, 1)
        enough = shown >= RIM_ANGLES / 3
        return np.where(enough, coverage, 0.0), np.where(enough, sharp, 0.0)

    scores = shares(counted)
    return (*scores, shares(hits)[0]) if scattered else scores


def _tower_edges(seed: int):
    """A noisy frame with discs of several colours and sizes overlapping, dark lines around some,
    part of one near the border; its edge field and a labelling of it for dark-line tests."""
    rng = np.random.default_rng(seed)
    image = np.clip(rng.normal(170, 3, (150, 190, 3)), 0, 255).astype(np.uint8)
    for (x, y, r), colour in zip([(80, 75, 50), (86, 70, 36), (90, 74, 22), (175, 20, 30)],
                                 [(40, 60, 200), (40, 60, 200), (200, 90, 40), (60, 170, 60)]):
        cv2.circle(image, (x, y), r, colour, -1)
        cv2.circle(image, (x, y), r, (30, 40, 120), 1)
    image = np.clip(image + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)
    edges = edge_field(image)
    labels = rng.integers(0, 4, edges.shape).astype(np.int32)
    return edges, labels


def _same(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("dark_line", [False, True])
@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("exclude", [(), ((80.0, 75.0, 50.0),), ((np.float64(80.0), 75.0, 50.0), (90.0, 74.0, 22.3))])
def test_rim_scores_are_the_plain_ones_bit_for_bit(seed, dark_line, groups, exclude):
    edges, labels = _tower_edges(seed)
    valley = DarkLine(3.0, labels, np.array([True, False, True, True])) if dark_line else None
    rng = np.random.default_rng(seed + 10)
    circles = []
    for group in range(groups):
        # Grids of centres at whole and half pixels, some near or across the image's edges.
        centre = (80, 75) if group < 2 else (170, 25)
        points = centre + rng.integers(-9, 10, (int(rng.integers(1, 40)), 2)) + rng.choice([0.0, 0.5], (1, 2))
        circles.append((points, float(rng.choice([21.7, 36.0, 49.6, 30.25]))))
    gap = np.float64(5.87) if len(exclude) > 1 else 4.2  # the gap's type decides the bounds'
    for whole_circle, scattered in [(False, False), (True, False), (False, True)]:
        new = rim_scores_of_groups(edges, circles, rims_to_exclude(exclude, gap), 1.5, valley, whole_circle, scattered)
        plain = _plain_rim_scores(edges, circles, exclude, gap, 1.5, valley, whole_circle, scattered)
        assert len(new) == len(plain) and all(_same(a, b) for a, b in zip(new, plain))


@pytest.mark.parametrize("seed", [0, 1])
def test_rim_hits_are_the_directions_that_count(seed):
    # The drawn-line test reads which directions counted, not only how many.
    edges, _ = _tower_edges(seed)
    exclude = [(80.0, 75.0, 50.0)]
    for centre, radius in [((86, 70), 36.0), ((90.4, 74.6), 22.0), ((175, 20), 30.0), ((80, 75), 49.6)]:
        hits = rim_hits(edges, centre, radius, exclude, 4.0, 1.5)
        plain = _plain_rim_scores(edges, [(centre, radius)], exclude, 4.0, 1.5, None, hits_only=True)[0]
        assert _same(hits, plain)
    assert rim_hits(edges, (86, 70), 36.0).sum() > RIM_ANGLES // 2


def test_best_circles_take_the_known_rims_once_for_every_pass(monkeypatch):
    # The known rims are converted once per call, not once per pass (grid, pixels, refinement).
    import vision.varanasi_circles as geometry

    edges, _ = _tower_edges(0)
    made = []
    monkeypatch.setattr(geometry, "rims_to_exclude", lambda exclude, gap: made.append(exclude) or rims_to_exclude(exclude, gap))
    found = best_circles(edges, [((86, 70), 36.0, 6.0), ((90, 74), 22.0, 6.0)], [(80.0, 75.0, 50.0)], 4.0)
    assert len(made) == 1
    assert all(coverage > 0.5 for _, coverage in found)


@pytest.mark.parametrize("spacing", [1.0, 3.0])
def test_search_discs_are_the_plain_ones_and_made_once_per_reach(spacing):
    # A tower's searches keep their reaches from round to round: the disc's offsets are cached.
    for reach in [2.0, 4.5, np.float64(9.0), np.float32(7.3), 13.000000001, 16.97]:
        steps = int(np.ceil(reach / spacing))
        line = np.arange(-steps, steps + 1) * spacing
        dx, dy = np.meshgrid(line, line)
        offsets = np.stack([dx.ravel(), dy.ravel()], axis=1)
        plain = offsets[(dx * dx + dy * dy).ravel() <= reach * reach + 1e-9] + np.rint([40.4, 17.6])
        assert _same(disc_of_points((40.4, 17.6), reach, spacing), plain)
        assert disc_offsets(reach, spacing) is disc_offsets(reach, spacing)


def test_dark_line_tests_gather_lightness_in_16_bits():
    # Half the bytes of float32 to gather and add; three levels add up to at most 765.
    edges, _ = _tower_edges(0)
    assert edges.lightness.dtype == np.uint16
    assert np.array_equal(edges.lightness, edges.lab_bytes[..., 0].reshape(-1))


@pytest.mark.parametrize("centres", [
    (40.5, 17.49), [[43.5, 42.5], [41.5, 47.0]], np.array([[43.5, 42.5], [44.4999, 48.5]]),
    np.array([[43.5, 42.5]], dtype=np.float32), np.array([[43, 42], [47, 49]]), np.array([42.5, 43.0]),
    np.array([[43.5, 9.0, 44.5, 46.5]])[:, 1::2],
])
def test_centres_of_any_form_are_rounded_to_whole_pixels_half_to_even(centres):
    # Tuples, lists, float32, integer and strided arrays are all scored at the whole pixels
    # numpy's rint gives them.
    edges, _ = _tower_edges(0)
    plain = np.rint(np.atleast_2d(np.asarray(centres, dtype=float))).astype(np.intp)
    for scores, expected in zip(rim_scores_of_groups(edges, [(centres, 36.0)], rims_to_exclude((), 0.0), 1.0, None),
                                _plain_rim_scores(edges, [(plain, 36.0)], (), 0.0, 1.0, None)):
        assert _same(scores, expected)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("dark_line", [False, True])
def test_a_wider_search_scores_only_its_grid_beyond_the_nearer_one_and_finds_what_it_found(seed, dark_line):
    # A wider search around the same centre (the dark-line search allowing for the lower disc's
    # own centre) finds the nearer search's best grid point again unless a point beyond it is
    # better: its grid is scored only beyond the nearer reach, with that point to beat, and finds
    # what the whole wider search finds, or nothing (None) where that is the nearer search's.
    edges, labels = _tower_edges(seed)
    valley = DarkLine(3.0, labels, np.array([True, False, True, True])) if dark_line else None
    rng = np.random.default_rng(seed)
    exclude, gap = [(86.0, 70.0, 36.0)], 4.0
    beyond = nothing_beyond = 0
    for _ in range(60):
        centre = np.array([80.0, 75.0]) + rng.uniform(-8, 8, 2)
        radius = float(rng.choice([22.0, 36.0, 50.0])) + rng.uniform(-3, 3)
        inner = float(rng.uniform(3.0, 10.0))
        reach = inner + float(rng.uniform(0.5, 9.0))
        (near,), (point,) = best_circles_and_grid_points(edges, [(centre, radius, inner)], exclude, gap, valley=valley)
        assert _same(point, disc_of_points(centre, inner, 3.0)[best_index(rim_scores_of_groups(
            edges, [(disc_of_points(centre, inner, 3.0), radius)], rims_to_exclude(exclude, gap), 1.0, valley))])
        (wide,) = best_circles(edges, [(centre, radius, reach)], exclude, gap, valley=valley)
        (found,) = circles_beyond(edges, [(centre, radius, inner, reach, point)], exclude, gap, valley=valley)
        if found is None:
            nothing_beyond += 1
            assert wide[1] == 0.0 or (_same(wide[0], near[0]) and wide[1] == near[1])
        else:
            beyond += 1
            assert _same(found[0], wide[0]) and found[1] == wide[1] > 0.0
    assert beyond and nothing_beyond


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("dark_line", [False, True])
def test_compiled_best_circles_are_the_searches_step_by_step(seed, dark_line):
    # Without a search of every pixel, the grids, their best points and their neighbours are one
    # compiled call: the circles found, their coverage and the grids' best points are those of the
    # searches scored step by step (a pixel search that never starts: no grid point sees any
    # direction, `least` being beyond every share).
    from vision.varanasi_geometry import PixelSearch

    edges, labels = _tower_edges(seed)
    valley = DarkLine(3.0, labels, np.array([True, False, True, True])) if dark_line else None
    rng = np.random.default_rng(seed + 20)
    never = PixelSearch(reach=2.0, least=np.inf)
    coverages = []
    for _ in range(25):
        searches = [(np.array([80.0, 75.0]) + rng.uniform(-40, 100, 2), float(rng.choice([22.0, 36.0, 50.0]) + rng.uniform(-3, 3)),
                     float(rng.uniform(0.0, 12.0))) for _ in range(int(rng.integers(1, 5)))]
        exclude = [] if rng.random() < 0.3 else [(86.0, 70.0, 36.0)]
        strictness = float(rng.choice([1.0, 1.5]))
        compiled = best_circles_and_grid_points(edges, searches, exclude, 4.0, strictness, valley)
        stepwise = best_circles_and_grid_points(edges, searches, exclude, 4.0, strictness, valley, never)
        for (found, coverage), (plain_found, plain_coverage) in zip(*(result[0] for result in (compiled, stepwise))):
            assert _same(found, plain_found) and type(coverage) is float and coverage == plain_coverage
            coverages.append(coverage)
        assert all(_same(a, b) for a, b in zip(compiled[1], stepwise[1]))
        assert len(compiled[0]) == len(compiled[1]) == len(searches)
    assert min(coverages) == 0.0 and max(coverages) > 0.0  # rims found and searches finding none


def test_the_kernel_refuses_arrays_it_would_read_or_write_beyond():
    # The compiled kernel checks every array's item size and length against what it reads, and the
    # groups' counts against the centres, before it runs: a slip in a caller is an error, not a
    # read past an array's end.
    from vision.varanasi_rims import score_rims

    edges, _ = _tower_edges(0)
    height, width = edges.shape
    gx, gy, floor = edges.gx.reshape(-1), edges.gy.reshape(-1), edges.rim_floor(1.0)
    across = np.array([-4.0, -1.0, 0.0, 1.0, 4.0])
    cos64, sin64 = np.cos(_ANGLES), np.sin(_ANGLES)
    none = np.zeros((0, 2), dtype=np.float32), np.zeros((0, 2))
    centres = np.array([[80.0, 75.0], [86.0, 70.0]])

    def scores(counts=(2,), image=gx, directions=(cos64, _COS32)):
        return score_rims(image, gy, width, height, centres, np.array(counts, dtype=np.int64), np.full(len(counts), 36.0),
                          across, directions[0], sin64, directions[1], _SIN32, floor, np.zeros(0, np.uint16),
                          np.zeros(0, np.uint8), np.zeros(0, bool), np.float32(0.0), *none, False, False, 1, True)

    counted, coverage, _, _ = scores()
    assert counted.shape == (2, RIM_ANGLES) and coverage.shape == (2,)
    with pytest.raises(ValueError, match="counts must add up"):
        scores(counts=(3,))
    with pytest.raises(ValueError, match="gx"):
        scores(image=gx[:-1])
    with pytest.raises(ValueError, match="cos32"):
        scores(directions=(cos64, _COS32[:-1]))
