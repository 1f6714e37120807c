"""Varanasi calibration: one photo of every disc lying apart + the piece-set file -> profile.

The set's inventory anchors everything (the idea of rubiks-color-resolver): every (colour, size)
pair is present exactly once, so discs and their sizes are found by assigning detected circles to
(colour, size) slots and colours by assigning each size's discs to colour names, both with the
Hungarian method, rather than by thresholds that would fit one lamp.
"""
from __future__ import annotations

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.varanasi_assignment import assign
from vision.varanasi_circles import best_circle
from vision.varanasi_colour import (
    colour_statistics,
    lab_to_srgb,
    lamp_gains,
    neutralise,
    srgb_to_lab,
    trimmed_pixels,
)
from vision.varanasi_geometry import ScaleField, edge_field, full_resolution_threshold, reduce, to_work
from vision.varanasi_params import (
    BOARD_BRIGHTNESS_QUANTILE,
    BOARD_GRID,
    BOARD_RING,
    CLEAR_RIM_THRESHOLD,
    COLOUR_NAMING_ROUNDS,
    COLOUR_SAMPLE_RADIUS,
    EDGE_STRICTNESS,
    FAINT_RIM_CONTRAST,
    MAX_SIZE_MISMATCH,
    MAX_SIZE_ROUNDS,
    RIM_SEARCH_PX,
)
from vision.varanasi_pieces import PieceSet
from vision.varanasi_scene import board_like_grid, cells_near_circles
from vision.varanasi_votes import centre_votes, radius_maps

PROFILE_VERSION = 1


def calibrate(image_bgr: np.ndarray, pieceset_json) -> dict:
    """Learn radii, scale across the view, colour models and board colour; raise if discs are missing."""
    pieces = PieceSet.from_json(pieceset_json)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.size == 0:
        raise ArbiterError("calibration image must be a colour image")
    height, width = image_bgr.shape[:2]
    edges = edge_field(image_bgr, full_resolution_threshold(image_bgr))
    circles = _disc_circles(image_bgr, edges, len(pieces.sizes) * len(pieces.colours))
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    pixels = [_disc_pixels(lab, circle, COLOUR_SAMPLE_RADIUS) for circle in circles]
    circle_lab = np.array([_face_colour(p) for p in pixels]).reshape(-1, 3)
    sizes_of, scale = _assign_sizes(circles, circle_lab, pieces)
    disc_ids = sorted(sizes_of)
    colour_of = _assign_colours(circle_lab, sizes_of, pieces)
    _check_colours_look_named(circle_lab, colour_of, pieces)
    missing = [
        pieces.code(size, colour)
        for size in pieces.sizes
        for colour in pieces.colours
        if (size, colour) not in {(sizes_of[i], colour_of[i]) for i in disc_ids}
    ]
    if missing:
        found = len(pieces.sizes) * len(pieces.colours) - len(missing)
        raise ArbiterError(
            f"calibration photo shows {found} of the {len(pieces.sizes) * len(pieces.colours)} discs; "
            f"not found: {', '.join(missing)} (lay every disc flat, apart, fully in view)"
        )

    work_edges = edge_field(reduce(image_bgr))
    votes = centre_votes(work_edges, radius_maps(work_edges.shape, scale, pieces.radii_mm))
    colours = {}
    for colour in pieces.colours:
        mine = [i for i in disc_ids if colour_of[i] == colour]
        coverage = _rim_coverage(edges, circles[mine])
        peaks = [_vote_peak(votes[pieces.sizes.index(sizes_of[i])], circles[i]) for i in mine]
        colours[colour] = {
            **colour_statistics(np.concatenate([trimmed_pixels(pixels[i]) for i in mine])),
            "hint_srgb": list(pieces.hints_srgb[pieces.colours.index(colour)]),
            "rim_coverage": round(float(np.median(coverage)), 3),
            "rim_votes": round(float(np.median(peaks)), 4),
        }
    board = _board_pixels(lab, [circles[i] for i in disc_ids])
    board_model = colour_statistics(board)
    discs = [
        {
            "code": pieces.code(sizes_of[i], colour_of[i]),
            "centre": [round(float(circles[i][0]), 1), round(float(circles[i][1]), 1)],
            "radius": round(float(circles[i][2]), 1),
        }
        for i in sorted(disc_ids, key=lambda i: (sizes_of[i], pieces.colours.index(colour_of[i])))
    ]
    centre_scale = float(scale.at(width / 2, height / 2))
    radius_px = {str(s): round(r * centre_scale, 2) for s, r in zip(pieces.sizes, pieces.radii_mm)}
    return {
        "game": "varanasi",
        "version": PROFILE_VERSION,
        "image_size": [width, height],
        "pieceset": pieces.to_json(),
        "px_per_mm": scale.to_json(),
        "colours": colours,
        "board": board_model,
        "board_area": _board_area(lab, board_model, [circles[i] for i in disc_ids]),
        "discs": discs,
        "summary": {
            "discs": len(discs),
            "radius_px_at_centre": radius_px,
            "px_per_mm_range": [
                round(float(min(scale.at(x, y) for x in (0, width) for y in (0, height))), 3),
                round(float(max(scale.at(x, y) for x in (0, width) for y in (0, height))), 3),
            ],
            "closest_colours": _closest_colours(colours),
        },
    }


def _vote_peak(plane: np.ndarray, circle) -> float:
    """Strongest centre vote within two work pixels of a disc's centre."""
    x, y = (int(round(v)) for v in to_work(circle[:2]))
    return float(plane[max(0, y - 2): y + 3, max(0, x - 2): x + 3].max(initial=0.0))


def _disc_circles(image_bgr: np.ndarray, edges, disc_count: int) -> np.ndarray:
    """One circle per place that may hold a disc, (n, 3) as x, y, r: clear rims first, faint ones
    only if the clear ones are too few for the set; of the circles ringing one place, the one
    whose rim shows best on `edges`."""
    circles = _detect_circles(image_bgr, CLEAR_RIM_THRESHOLD)
    if len(_places(circles)) < disc_count:
        gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
        faint_threshold = FAINT_RIM_CONTRAST * float(np.quantile(gray, BOARD_BRIGHTNESS_QUANTILE))
        circles = np.vstack([circles, _detect_circles(image_bgr, faint_threshold)])
    coverage = _rim_coverage(edges, circles)
    return np.array([circles[max(place, key=lambda i: coverage[i])] for place in _places(circles)]).reshape(-1, 3)


def _detect_circles(image_bgr: np.ndarray, rim_threshold: float) -> np.ndarray:
    """Every circle-like outline whose rim reaches `rim_threshold` (Canny's upper threshold),
    (n, 3) as x, y, r in pixels; extra ones are weeded out later."""
    height, width = image_bgr.shape[:2]
    gray = cv2.GaussianBlur(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY), (5, 5), 1.5)
    short_side = min(width, height)
    # Discs from 40-55 cm span roughly 2-10% of the short side; the bounds are generous.
    min_radius = max(4, int(short_side * 0.01))
    found = cv2.HoughCircles(
        gray,
        cv2.HOUGH_GRADIENT_ALT,
        dp=1.5,
        minDist=2 * min_radius,
        param1=rim_threshold,
        param2=0.6,
        minRadius=min_radius,
        maxRadius=int(short_side * 0.15),
    )
    return np.zeros((0, 3)) if found is None else found[0].astype(float)


def _places(circles: np.ndarray) -> list[list[int]]:
    """Indices of the circles ringing each place, in order: Hough may ring a disc twice (its top
    face and its side), and the faint search again. A place is where its first circle (the clearest,
    best-voted) lies; a later circle belongs to the first place near it, so a disc's fainter inner
    rings never open a place of their own."""
    places: list[list[int]] = []
    for index, circle in enumerate(circles):
        home = next((place for place in places if _same_place(circle, circles[place[0]])), None)
        if home is None:
            places.append([index])
        else:
            home.append(index)
    return places


def _same_place(circle: np.ndarray, other: np.ndarray) -> bool:
    return bool(np.hypot(*(circle[:2] - other[:2])) <= 0.5 * min(circle[2], other[2]))


def _rim_coverage(edges, circles: np.ndarray) -> np.ndarray:
    """How much of each circle's rim shows, at the best centre within RIM_SEARCH_PX."""
    return np.array([
        best_circle(edges, circle[:2], float(circle[2]), RIM_SEARCH_PX, strictness=EDGE_STRICTNESS)[1]
        for circle in circles
    ])


def _assign_sizes(circles: np.ndarray, circle_lab: np.ndarray, pieces: PieceSet) -> tuple[dict[int, int], ScaleField]:
    """Size of each circle that is a disc, and the scale field fitted to them.

    Circles are assigned to the set's (colour, size) slots by the Hungarian method, alternating
    with refitting the scale plane until the assignment settles. The first round weighs radii
    only (from the single scale under which most circles match some size); the next one also
    the discs' lamp-corrected colours against the set's hints, later ones their colours against
    the set's own colours under this lamp (as naming does). Radii alone cannot tell a keystoned
    disc of one size from a disc of the next, nor a disc from a ring of the board's drawing or a
    stray circle on the table; each colour once per size can.
    """
    if len(circles) == 0:
        raise ArbiterError("calibration photo shows no discs")
    radii_mm = np.array(pieces.radii_mm)
    scale = ScaleField(_starting_scale(circles[:, 2], radii_mm))
    slot_sizes = np.repeat(np.arange(len(pieces.sizes)), len(pieces.colours))
    slot_colours = np.tile(np.arange(len(pieces.colours)), len(pieces.sizes))
    colour_cost = np.zeros((len(circles), len(pieces.colours)))
    slots_of: dict[int, int] = {}
    for round_number in range(MAX_SIZE_ROUNDS):
        expected = scale.at(circles[:, 0], circles[:, 1])[:, None] * radii_mm[None, :]
        mismatch = np.abs(np.log(circles[:, 2, None] / expected))
        cost = _size_cost(mismatch, radii_mm)[:, slot_sizes] + colour_cost[:, slot_colours]
        new_slots = {row: col for row, col in assign(cost) if mismatch[row, slot_sizes[col]] < MAX_SIZE_MISMATCH}
        if not new_slots:
            raise ArbiterError("calibration photo shows no discs of the piece set's sizes")
        if new_slots == slots_of:
            break
        slots_of = new_slots
        ids = np.array(sorted(slots_of))
        measured = circles[ids, 2] / radii_mm[slot_sizes[[slots_of[i] for i in ids]]]
        scale = ScaleField.fit(circles[ids, :2], measured)
        if round_number == 0:
            features = _lamp_corrected(circle_lab, circle_lab[ids], pieces)
            references = srgb_to_lab(np.array(pieces.hints_srgb, dtype=float))
        else:
            features = circle_lab
            references = _colour_means(circle_lab, {i: slot_colours[slot] for i, slot in slots_of.items()},
                                       len(pieces.colours))
        colour_cost = _colour_cost(features, references)
    return {i: pieces.sizes[slot_sizes[slot]] for i, slot in slots_of.items()}, scale


def _starting_scale(radii_px: np.ndarray, radii_mm: np.ndarray) -> float:
    """The single px/mm under which most circles match some size of the set."""
    log_ratios = np.log(radii_px[:, None] / radii_mm[None, :])
    candidates = log_ratios.ravel()
    matches = [(np.abs(log_ratios - candidate).min(axis=1) < MAX_SIZE_MISMATCH / 2).sum() for candidate in candidates]
    return float(np.exp(candidates[int(np.argmax(matches))]))


def _size_cost(mismatch: np.ndarray, radii_mm: np.ndarray) -> np.ndarray:
    """Squared radius mismatch (log-ratio) in units of half the closest step between two sizes:
    1 where a disc would be as near the next size as its own."""
    half_step = np.diff(np.log(np.sort(radii_mm))).min() / 2
    return (mismatch / half_step) ** 2


def _colour_cost(features: np.ndarray, references: np.ndarray) -> np.ndarray:
    """(circles, colours): squared Lab distance of each circle's colour to each colour's
    reference, in units of half the distance between the two closest references (1 where a disc
    would be as near another colour of the set as its own). A set of one colour has nothing to
    tell apart by colour."""
    if len(references) < 2:
        return np.zeros((len(features), len(references)))
    gaps = np.linalg.norm(references[:, None, :] - references[None, :, :], axis=2)
    # At least one Lab unit, the scale's resolution (two hints may be given alike).
    half_gap = max(gaps[np.triu_indices(len(references), 1)].min() / 2, 1.0)
    return (np.linalg.norm(features[:, None, :] - references[None, :, :], axis=2) / half_gap) ** 2


def _colour_means(circle_lab: np.ndarray, colour_of: dict[int, int], colour_count: int) -> np.ndarray:
    """(colours, 3): the mean Lab of the circles given each colour (index); far off for a colour
    no circle was given, so that nothing is near it."""
    means = np.full((colour_count, 3), 1e6)
    for colour in range(colour_count):
        mine = [i for i, c in colour_of.items() if c == colour]
        if mine:
            means[colour] = circle_lab[mine].mean(axis=0)
    return means


def _check_colours_look_named(circle_lab: np.ndarray, colour_of: dict[int, str], pieces: PieceSet) -> None:
    """Refuse a piece set whose colours the photo does not show. With the lamp's cast removed,
    each colour's discs and that colour's nominal sRGB must be each other's nearest: the discs
    nearer their own colour than any other colour of the set, and the colour nearer its own discs
    than any other colour's discs.

    Naming gives every colour of the set some discs, whatever the photo shows. The first half
    refuses discs that look like another colour of the set (a black-and-white set calibrated as
    the standard one); the second a colour no disc shows, whose discs are merely the leftovers
    nearest it (black discs taken for purple, while the blue discs look more purple than they).
    Both compare the set's colours with each other only, so no distance needs tuning to a lamp.
    """
    ids = sorted(colour_of)
    neutral = _lamp_corrected(circle_lab[ids], circle_lab[ids], pieces)
    references = srgb_to_lab(np.array(pieces.hints_srgb, dtype=float))
    named = [index for index, colour in enumerate(pieces.colours) if colour in colour_of.values()]
    clusters = np.array([
        neutral[[row for row, i in enumerate(ids) if colour_of[i] == pieces.colours[index]]].mean(axis=0)
        for index in named
    ]).reshape(-1, 3)
    # distance[k, j]: from the discs taken for colour named[k] to the nominal colour j.
    distance = np.linalg.norm(clusters[:, None, :] - references[None, :, :], axis=2)
    for k, index in enumerate(named):
        nearest = int(distance[k].argmin())
        if nearest != index:
            raise ArbiterError(
                f"the discs taken for {pieces.colours[index]} look {pieces.colours[nearest]} in this photo: "
                f"is this the piece set on the table? Calibrate with the set's own piece-set file")
    unshown = [
        (pieces.colours[index], pieces.colours[named[int(distance[:, index].argmin())]], distance[k, index])
        for k, index in enumerate(named)
        if int(distance[:, index].argmin()) != k
    ]
    if unshown:
        unshown.sort(key=lambda item: -item[2])  # the colour least like its own discs first
        raise ArbiterError(
            f"no disc in this photo looks {' or '.join(colour for colour, _, _ in unshown)} (the discs nearest "
            + ", those nearest ".join(f"{colour} were taken for {other}" for colour, other, _ in unshown)
            + "): is this the piece set on the table? Calibrate with the set's own piece-set file")


def _lamp_corrected(lab_colours: np.ndarray, disc_lab: np.ndarray, pieces: PieceSet) -> np.ndarray:
    """Lab colours with the lamp's cast removed, the lamp judged from the set's discs `disc_lab`
    (their average matches the average hint: see `lamp_gains`)."""
    gains = lamp_gains(lab_to_srgb(disc_lab), np.array(pieces.hints_srgb, dtype=float))
    return srgb_to_lab(neutralise(lab_to_srgb(lab_colours), gains))


def _disc_pixels(lab: np.ndarray, circle, fraction: float) -> np.ndarray:
    x, y, r = circle
    height, width = lab.shape[:2]
    reach = r * fraction
    x0, x1 = int(max(0, x - reach)), int(min(width, x + reach + 1))
    y0, y1 = int(max(0, y - reach)), int(min(height, y + reach + 1))
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - x) ** 2 + (yy - y) ** 2 <= reach * reach
    return lab[y0:y1, x0:x1][inside].astype(float)


def _face_colour(lab_pixels: np.ndarray) -> np.ndarray:
    """A disc face's colour: the median of its pixels, glints and shaded rims dropped."""
    return np.median(trimmed_pixels(lab_pixels), axis=0)


def _assign_colours(circle_lab: np.ndarray, sizes_of: dict[int, int], pieces: PieceSet) -> dict[int, str]:
    """Name each disc's colour: first against the lamp-corrected hints, then against the
    colours of the set itself (each size's discs take each colour once)."""
    ids = sorted(sizes_of)
    observed_lab = circle_lab[ids]
    neutral_lab = _lamp_corrected(observed_lab, observed_lab, pieces)
    references = srgb_to_lab(np.array(pieces.hints_srgb, dtype=float))
    features = neutral_lab
    colour_of: dict[int, str] = {}
    for _ in range(COLOUR_NAMING_ROUNDS):
        for size in pieces.sizes:
            rows = [k for k, i in enumerate(ids) if sizes_of[i] == size]
            cost = ((features[rows, None, :] - references[None, :, :]) ** 2).sum(axis=2)
            for row, col in assign(cost):
                colour_of[ids[rows[row]]] = pieces.colours[col]
        # Later rounds compare discs with the set's own colours under this lamp.
        features = observed_lab
        references = _colour_means(
            circle_lab, {i: pieces.colours.index(colour) for i, colour in colour_of.items()}, len(pieces.colours))
    return colour_of


def _board_pixels(lab: np.ndarray, circles) -> np.ndarray:
    """Pixels of the board surface: rings just outside each disc, minus any other disc."""
    height, width = lab.shape[:2]
    yy, xx = np.mgrid[0:height:2, 0:width:2]
    ring = np.zeros(yy.shape, dtype=bool)
    covered = np.zeros(yy.shape, dtype=bool)
    for x, y, r in circles:
        d2 = (xx - x) ** 2 + (yy - y) ** 2
        ring |= (d2 >= (BOARD_RING[0] * r) ** 2) & (d2 <= (BOARD_RING[1] * r) ** 2)
        covered |= d2 <= (BOARD_RING[0] * r) ** 2
    samples = lab[0:height:2, 0:width:2][ring & ~covered].astype(float)
    if len(samples) < 16:
        raise ArbiterError("calibration photo: the board around the discs is not visible")
    # Keep the board's own colour, not the drawn lines crossing the rings.
    centre = np.median(samples, axis=0)
    distance = np.linalg.norm(samples - centre, axis=1)
    return samples[distance <= np.quantile(distance, 0.8)]


def _board_area(lab: np.ndarray, board_model: dict, circles) -> list[str]:
    """Coarse map ('#' board, '.' elsewhere) of where the board shows, discs counted as board.

    Recognition compares a frame with it to notice a hand or an object over the board.
    """
    grid = board_like_grid(lab, board_model, BOARD_GRID)
    grid |= cells_near_circles(lab.shape[:2], BOARD_GRID, circles)
    return ["".join("#" if cell else "." for cell in row) for row in grid]


def _closest_colours(colours: dict) -> dict:
    """The two colour names the camera tells apart least well (a warning worth showing)."""
    names = list(colours)
    best = None
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = np.array(colours[a]["lab_mean"]) - np.array(colours[b]["lab_mean"])
            pooled = (np.array(colours[a]["lab_covariance"]) + np.array(colours[b]["lab_covariance"])) / 2
            distance = float(np.sqrt(diff @ np.linalg.solve(pooled, diff)))
            if best is None or distance < best[2]:
                best = (a, b, distance)
    if best is None:
        return {}
    return {"colours": [best[0], best[1]], "separation_sigma": round(best[2], 2)}
