"""The colour chain: a tower's discs found from the colour footprint above each disc."""
from __future__ import annotations


import cv2
import numpy as np

from vision import _varanasi_rings
from vision.varanasi_circles import best_circle, best_circles, rim_scores
from vision.varanasi_edge_tests import edge_presence
from vision.varanasi_geometry import EdgeField
from vision.varanasi_params import (
    CHAIN_SIZE_CHOICES,
    COLOURED_SHARE,
    EDGE_STRICTNESS,
    FACE_EDGE_OUTLIER,
    FACE_EDGE_SPREAD_PX,
    RIM_ANGLES,
    RIM_INSET,
    WORK_SCALE,
)
from vision.varanasi_pixels import (
    circle_through,
    circle_window,
    component_near,
    fill_holes,
    level_growth,
    median_of,
    ring_colour,
    size_spacing,
    to_full_pixel,
    to_reduced,
)
from vision.varanasi_profile import ParsedProfile

# Directions (cos, sin; column vectors) of the rays `_face_edge_fit` casts from a centre.
_RAY_COS, _RAY_SIN = (f(np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False)) for f in (np.cos, np.sin))
# Where `_face_edge_fit`'s pass leaves the points it finds, a ray's at most.
_FACE_POINTS = np.empty((RIM_ANGLES, 2))


def colour_chain(work_labels, labels, edges, frame: ParsedProfile, seed, radii: dict, reach: float,
                  peaks=()) -> tuple[dict, tuple | None]:
    """Discs told apart by colour, bottom up: {size: (centre, presence, colour label)}, and the
    bottom size fitted first but handed over to the next size down whose rim shows more (size,
    (centre, coverage)), else None; `peaks` are the centre-vote peaks in the crop, (size, centre).

    The footprint of everything from a disc up is what is neither board nor that disc's colour
    inside it; the biggest circle fitting in the footprint (distance transform) is the next disc.
    Footprints are shaped (opened, holes filled, the part near the reference kept) on the reduced
    labels `work_labels`, where labels are measured (`labels` is their full-resolution copy, pixel
    for pixel): a quarter of the pixels. The distance transform is taken on the full-resolution
    copy of the footprint, so that circles are fitted in full-resolution steps: on the reduced
    footprint the fitted centre moves by a pixel or two, enough to tip the colour of a ring far
    off-centre.
    """
    pieces = frame.pieces
    board = len(frame.colours.names)
    spacing = size_spacing(radii)
    # Lengths in full-resolution pixels, halved on the reduced labels.
    opening_radius = max(1, int(0.15 * min(radii.values()) * WORK_SCALE))
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * opening_radius + 1,) * 2)
    # Above the bottom disc the footprint lies inside the disc below, so the work is done on that
    # disc's box, with a margin wider than the opening: the results are those on the whole crop.
    # The footprint opened, on a box whose top left pixel is `corner` (x, y; reduced). Booleans
    # are handed to OpenCV as their 0 and 1 bytes (a view, no copy).
    corner = np.zeros(2)
    opened = cv2.morphologyEx((work_labels != board).view(np.uint8), cv2.MORPH_OPEN, opening)
    reference, below, lower_colour = np.asarray(seed, dtype=float), None, None
    chain: dict[int, tuple[np.ndarray, float]] = {}
    handed_over = None
    while True:
        zone = reach if below is None else spacing * 4
        # Holes are filled before looking near the reference: a disc the colour of the board
        # on top leaves the footprint a ring around the vote peak.
        mask = fill_holes(opened)
        mask = component_near(mask, to_reduced(reference) - corner, zone * WORK_SCALE)
        if mask is None:
            break
        # The distance transform at full resolution, on the reduced pixels of the footprint seen
        # as the 2x2 pixels they cover (see above).
        mask = cv2.resize(mask, None, fx=1 / WORK_SCALE, fy=1 / WORK_SCALE, interpolation=cv2.INTER_NEAREST)
        distance = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
        # Only a disc centred near the reference belongs to this tower: shadows can join the
        # footprint to a neighbouring tower's.
        # Worked on the box of that circle only (outside it every value is left out anyway): the
        # first highest value in the box is the first in the whole distance map, unless every
        # value is left out (then the map's first pixel, as argmax gives on all zeros).
        full_corner = (corner / WORK_SCALE).astype(int)
        window, yy, xx = circle_window(distance.shape, reference - full_corner, zone)
        yy, xx = yy + full_corner[1], xx + full_corner[0]
        near = distance[window]
        near[(xx - reference[0]) ** 2 + (yy - reference[1]) ** 2 > zone * zone] = 0
        cy, cx = np.unravel_index(int(np.argmax(near)), near.shape) if near.size else (0, 0)
        found = float(near[cy, cx]) if near.size else 0.0
        if found > 0.0:
            cy, cx = cy + window[0].start, cx + window[1].start
        else:
            cy, cx = 0, 0
        cy, cx = cy + int(full_corner[1]), cx + int(full_corner[0])
        level = len(chain)
        candidates = [s for s in pieces.sizes if below is None or s < below]
        if not candidates:
            break
        expected = {s: radii[s] * level_growth(level, pieces) for s in candidates}
        nearest = sorted(candidates, key=lambda s: abs(found - expected[s]))[:CHAIN_SIZE_CHOICES]
        if abs(found - expected[nearest[0]]) > 1.5 * spacing:
            break
        # Pixel colours blur at rims (and white nearly matches a cream board), so the fitted
        # radius only shortlists sizes; when the nearest one's rim does not show, the rim that
        # shows best decides.
        size = nearest[0]
        fits = {size: best_circle(edges, (cx, cy), expected[size], 0.5 * spacing)}
        if edge_presence(fits[size][1], frame) < 0.5:
            # What joins the footprint without being a disc (glare, a line drawn on the board,
            # shade) can pull its inscribed circle farther aside than the half size step searched
            # around it: each shortlisted size is then looked for around the reference too, where
            # the rims themselves point (the vote peak, the face below), and the better fit kept.
            # A rim of the nearest size around the reference alone is not enough: the chain would
            # take a disc a level up where the face below is, and skip one.
            searches = [((cx, cy), s) for s in nearest if s != size] + [(reference, s) for s in nearest]
            for (_, s), fit in zip(searches, best_circles(edges, [(start, expected[s], 0.5 * spacing)
                                                                  for start, s in searches])):
                fits[s] = _better_fit(edges, expected[s], fits[s], fit) if s in fits else fit
            size = max(nearest, key=lambda s: fits[s][1])
        else:
            # A disc higher up is looked for around its own size's vote peak, where that size's
            # rims point, rather than around the face below: it rests up to 4 mm off that face,
            # and farther where the chain skipped the disc between (a 2orange fitted straight on
            # a 4red, the 3purple's thin crescent labelled red). The peak is looked for in the
            # zone the footprint's circle is taken from. The bottom disc keeps the tower's vote
            # peak: a tower's shadow on the board draws an arc of the bottom size beside it,
            # whose votes can outrank the disc's own (a 4orange's plane peaked 11 px off it): its
            # own peak is only a second place to look (`_refit_around_own_peak`).
            around = reference if below is None else own_vote_peak(peaks, size, reference, zone)
            fits[size] = _refit_around_reference(edges, fits[size], (cx, cy), around, expected[size],
                                                 0.5 * spacing, bottom=below is None)
            if below is None:
                fits[size] = _refit_around_own_peak(edges, fits[size], own_vote_peak(peaks, size, reference, zone),
                                                    reference, expected[size], 0.5 * spacing)
            if below is not None and nearest[-1] > size:
                # The footprint's circle lay between the size taken and a bigger one: a disc of that
                # size may lie between, its face a crescent round the one taken.
                size = _disc_between(edges, labels, frame, fits, size, nearest[-1], (cx, cy, found), reference,
                                     expected, spacing, lower_colour)
        smaller = [s for s in candidates if s < size][-1:]
        if below is None and smaller and fits[size][1] < 1.0:
            # The bottom disc's footprint also takes in what lies beside it on the board (glare,
            # a drawn line, its shadow), which only ever makes it bigger: where the rim of the
            # size fitted shows in part, the next size down is looked for too, and taken where
            # its rim shows more and makes a disc present (a lone disc beside glare would
            # otherwise be read a size bigger, carried by its footprint's size).
            fit = _fuller_rim(edges, frame, fits[size], [(cx, cy), reference], expected[smaller[0]], 0.5 * spacing)
            if fit is not None:
                handed_over = (size, fits[size])
                size, fits[smaller[0]] = smaller[0], fit
        centre, radius = fits[size][0], expected[size]
        miss = abs(found - radius)
        presence = float(1.0 / (1.0 + np.exp(-(0.5 * spacing - miss) / (0.08 * spacing))))
        # Its footprint is what is not the colour of the disc below, so neither is the disc (a
        # disc on one of its own colour is left to the edge tests): the colour above, far
        # off-centre, can cover half the ring, and the lower one shows there too.
        colour = ring_colour(labels, board, centre, radius, RIM_INSET * spacing, 0.5 * spacing,
                              exclude=lower_colour)
        # On the board a disc's rim can hardly show (a white disc on a cream board), and its
        # footprint's size alone may carry it. A disc on another one of another colour draws a
        # colour step all round: one whose rim does not show is glare or shade on the face below
        # (a glare spot on a 3orange, labelled yellow, fitted a 1yellow), left to the edge tests.
        # Not a disc the colour of the board: where it overhangs the disc below, its rim is faint
        # again.
        shown = edge_presence(fits[size][1], frame)
        if below is None or shown >= 0.5 or colour in frame.board_like_colours:
            presence = max(presence, shown)
        else:
            presence = shown
        chain[size] = (centre, presence, colour)
        if colour is None or size == min(pieces.sizes):
            break
        # What lies on the disc is looked for inside its top face (`face_centre`), which its side
        # band and shadow do not pull aside as they do the outline. The face is fitted only when
        # something shows inside the outline (the footprint survives the opening): a tower's top
        # disc needs none.
        corner, footprint = footprint_on(work_labels, board, colour, centre, radius, RIM_INSET * spacing,
                                          opening_radius)
        opened = cv2.morphologyEx(footprint.view(np.uint8), cv2.MORPH_OPEN, opening)
        if not opened.any():
            break
        face = face_centre(edges, labels, colour, board + 1, centre, radius, 0.5 * spacing)
        # No face fitted (about two in five) leaves the outline's centre, and so the same footprint.
        if not np.array_equal(face, centre):
            corner, footprint = footprint_on(work_labels, board, colour, face, radius, RIM_INSET * spacing,
                                              opening_radius)
            opened = cv2.morphologyEx(footprint.view(np.uint8), cv2.MORPH_OPEN, opening)
        reference, below, lower_colour = face, size, colour
    return chain, handed_over


def _disc_between(edges: EdgeField, labels, frame: ParsedProfile, fits: dict, size: int, bigger: int, footprint,
                  reference, expected: dict, spacing: float, lower_colour: int) -> int:
    """The size the colour chain takes above the bottom disc: `size`, the one nearest the
    footprint's inscribed circle `footprint` (x, y, radius; its rim shows), or the `bigger` one
    shortlisted with it where a disc of that size lies between (its fit is then put in `fits`).

    Above the bottom disc the footprint lies within the face below, so a colour just inside the
    footprint's circle other than the one just inside the disc fitted in it is the face of a disc
    between them. Far off-centre under the disc on it, that face shows as a crescent whose
    inscribed circle can come out nearer the upper disc's size (a 3blue on a 4purple under a
    2yellow: 38.0 px, a 2 being 34.1 and a 3 43.0), and the edge tests then find too faint a rim
    where blue meets purple (0.23-0.50 of it under their stricter test). The bigger size stands
    where, around the footprint's circle or the reference, its rim shows and the ring just inside
    it holds that colour more than any other, the colour below included: its own face lies there.
    A blend of two colours along the upper disc's edge (orange between a 1yellow and the 3purple
    under it, through a resampled view) is a thin fringe, and a circle around it holds mostly the
    face below.
    """
    colour_count, inner, outer, reach = len(frame.colours.names), RIM_INSET * spacing, 0.5 * spacing, 0.5 * spacing
    x, y, radius = footprint
    between = ring_colour(labels, colour_count, (x, y), radius, inner, outer, exclude=lower_colour)
    fitted = ring_colour(labels, colour_count, fits[size][0], expected[size], inner, outer, exclude=lower_colour)
    if between is None or between == fitted:
        return size
    searches = [((x, y), expected[bigger], reach), (reference, expected[bigger], reach)]
    shown = [fit for fit in best_circles(edges, searches)
             if edge_presence(fit[1], frame) >= 0.5
             and ring_colour(labels, colour_count, fit[0], expected[bigger], inner, outer) == between]
    if not shown:
        return size
    fits[bigger] = max(shown, key=lambda fit: fit[1])
    return bigger


def doubt_of_handed_over(handed_over, accepted: dict, frame: ParsedProfile) -> dict:
    """{size: (centre, presence below one half)} of the bottom disc the colour chain fitted and
    handed over to the next size down (`_fuller_rim`), when no disc of that size or bigger was
    then accepted under it: the edge tests look for it again under the disc above and can fit it
    on the tower's shadow and refuse it as shade, while the chain's own fit had shown its rim at
    the disc's place.
    That rim, judged alone (as a disc with nothing in its tower to back it up, which is what it is
    once refused: ghosts made of a lone disc's footprint widened by glare or a drawn line show
    0.3-0.7 of a rim, real bottom discs 0.83-0.98), against the refusal, counted as even odds, is
    the doubt the tower keeps for it: the reading is the refusal's, its confidence no longer."""
    # A disc of that size or bigger found under the tower is the disc the chain's fit stood for
    # (a bottom 4 fitted a size small by its footprint, then found whole by its edges).
    if handed_over is None or any(size >= handed_over[0] for size in accepted):
        return {}
    size, (centre, coverage) = handed_over
    return {size: (centre, 0.5 * edge_presence(coverage, frame, alone=True))}


def _fuller_rim(edges: EdgeField, frame: ParsedProfile, fit, starts, radius: float, reach: float):
    """The best fit (centre, coverage) of a circle of `radius` within `reach` of any of `starts`,
    when its rim makes a disc present (`edge_presence`) and shows more than `fit`'s; else None."""
    best = max(best_circles(edges, [(start, radius, reach) for start in starts]), key=lambda found: found[1])
    return best if edge_presence(best[1], frame) >= 0.5 and best[1] > fit[1] else None


def own_vote_peak(peaks, size: int, reference, reach: float) -> np.ndarray:
    """Of the centre-vote `peaks` ((size, centre) in the crop), the centre of the one of `size`
    nearest `reference` within `reach`, else `reference`."""
    own = [centre for peak_size, centre in peaks if peak_size == size and np.hypot(*(centre - reference)) <= reach]
    return min(own, key=lambda centre: np.hypot(*(centre - reference)), default=reference)


def _refit_around_own_peak(edges: EdgeField, fit, own_peak, vote_peak, radius: float, reach: float
                           ) -> tuple[np.ndarray, float]:
    """A bottom disc's colour-chain fit (centre, coverage), or the fit around its own size's vote
    peak `own_peak` where that shows at least as much rim and lies nearer the tower's `vote_peak`.

    A tower's shadow on the board joins the bottom disc's footprint and pulls the fit onto it,
    where the near arc on the shadow's edge and the far one on the rim of the disc above show a
    whole rim. Where the tower's vote peak (its top disc's) lies farther from the bottom disc's
    centre than `reach`, the search around it (`_refit_around_reference`) does not bring the fit
    back (a 4red under three discs, its tower's peak 7.5 px off it). The size's own vote peak lay on
    the disc there, but the shadow's arc votes for that size too, and on another tower its peak
    outranked the disc's own, 11 px off on the shadow. Of two fits showing the rim alike, the one
    nearer the tower's vote peak is the disc's: the shadow lies beside the tower, and pulls a fit
    away from the rims that make that peak. The own peak within `reach` of the fit is the fit's
    own plateau, and no search is made there.
    """
    if np.array_equal(own_peak, vote_peak) or np.hypot(*np.subtract(fit[0], own_peak)) <= reach:
        return fit
    other = best_circle(edges, own_peak, radius, reach)
    nearer = np.hypot(*np.subtract(other[0], vote_peak)) < np.hypot(*np.subtract(fit[0], vote_peak))
    return other if other[1] >= fit[1] and nearer else fit


def _refit_around_reference(edges: EdgeField, fit, footprint_centre, reference, radius: float, reach: float,
                            bottom: bool) -> tuple[np.ndarray, float]:
    """A colour-chain fit whose rim shows (centre, coverage), or a better one (`_better_fit`) around
    the chain's reference where the search around the footprint's circle may have been pulled aside.

    What joins the footprint without being a disc (glare, shade, a bottom disc's own shadow on the
    board) pulls its inscribed circle aside, and the search within `reach` of it then fits the size
    where its rim shows only in part (glare beside a 4blue: the ring read just inside held its
    3yellow) or where it shows whole on a second plateau (beside its shadow, the near arc on the
    shadow's edge and the far one on the rim of the disc above). So where the fit or the footprint's
    circle lies beyond `reach` of the reference, where the rims point (the vote peak, the face
    below), the size is looked for there too, and the better fit kept: the higher coverage, the
    sharper rim on a tie, as `best_circle` ranks the centres it tries (a shadow's edge is softer than
    a rim). A disc higher up whose rim shows whole is left as fitted: it may rest up to 4 mm off the
    face below, farther than `reach`; looking for every such disc there too would double the
    searches for no change in what is read.
    """
    beyond = max(np.hypot(*np.subtract(fit[0], reference)), np.hypot(*np.subtract(footprint_centre, reference))) > reach
    if not beyond or (fit[1] >= 1.0 and not bottom):
        return fit
    return _better_fit(edges, radius, fit, best_circle(edges, reference, radius, reach))


def _better_fit(edges: EdgeField, radius: float, first, second) -> tuple[np.ndarray, float]:
    """Of two (centre, coverage) fits of one radius, the one whose rim shows best, the sharper
    rim among equals (as `best_circle` ranks the centres it tries); the first on a tie."""
    if first[1] != second[1]:
        return first if first[1] > second[1] else second
    if first[1] == 0.0 or np.array_equal(first[0], second[0]):
        return first
    _, sharpness = rim_scores(edges, np.array([first[0], second[0]]), radius)
    return second if sharpness[1] > sharpness[0] else first


def footprint_on(work_labels, board: int, colour: int, centre, radius: float, inset: float, opening_radius: int):
    """(top left pixel (x, y; reduced) of a box, footprint on that box) of what is neither board
    nor `colour` within `inset` inside the circle of `radius` around `centre` (full-resolution
    pixels) on the reduced labels; the box leaves a margin wider than the opening."""
    box, yy, xx = circle_window(work_labels.shape, to_reduced(centre), (radius + 2) * WORK_SCALE + opening_radius + 2)
    corner = np.array([box[1].start, box[0].start], dtype=float)
    yy, xx = to_full_pixel(yy), to_full_pixel(xx)
    inside = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2 <= (radius - inset) ** 2
    return corner, inside & (work_labels[box] != board) & (work_labels[box] != colour)


def face_centre(edges: EdgeField, labels, colour: int, no_colour: int, centre, radius: float, reach: float):
    """The centre of a disc's top face, from the sharpest circle's `centre`.

    The sharpest circle fits the outline, which the disc's side band (on the side away from the
    camera) and its shadow widen on one side, so it leans that way, by up to half a size step
    through a soft or resampled view (the rim coverage saturates over the band's whole width).
    The face's own edge is the first edge met going outward from inside the face: its colour
    against the darker side band, or against the board, a shadow or the disc below. The circle
    fitted to those points is taken when it lies within `reach` of the sharpest one. It is fitted
    once: iterating to convergence reads the same at two to three times the cost.
    """
    fit = _face_edge_fit(edges, labels, colour, no_colour, np.asarray(centre, dtype=float), radius, reach)
    return centre if fit is None else fit


def _face_edge_fit(edges: EdgeField, labels, colour: int, no_colour: int, centre: np.ndarray, radius: float,
                   reach: float):
    """Centre of the circle through the first edge outward on each of RIM_ANGLES rays from
    `centre`, searched from `reach` (and 2 px) inside `radius` to as far outside; None when fewer
    than half the rays show it near the fitted circle, or that circle lies more than `reach` off
    in centre or radius, or reaches out of the outline (the circle of `radius` around `centre`).

    A ray counts when it starts on the face: on the face's colour label or, when fewer than
    COLOURED_SHARE of the starts of that colour or of none (`no_colour`) are of that colour (a
    face lit off its colour, e.g. a black with a sheen), on no colour either; one starting on the
    disc above or on the board does not.
    """
    steps = np.arange(radius - reach - 2.0, radius + reach + 2.5, 0.5)
    height, width = labels.shape
    # The rays, their starts and edges in one compiled pass (vision/varanasi_rings.c), where numpy
    # took some twenty calls on a few dozen rays.
    least = RIM_ANGLES // 2
    found = _varanasi_rings.face_edge_points(
        np.ascontiguousarray(labels), edges.gx, edges.gy, edges.rim_floor(EDGE_STRICTNESS), width, height,
        float(centre[0]), float(centre[1]), _RAY_COS, _RAY_SIN, steps, int(colour), int(no_colour), COLOURED_SHARE,
        least, _FACE_POINTS)
    if found < least:
        return None
    return trimmed_face_circle(_FACE_POINTS[:found].copy(), centre, radius, reach, least)


def trimmed_face_circle(points: np.ndarray, centre: np.ndarray, radius: float, reach: float, least: int):
    """Centre of the circle fitted to the face-edge `points`, far points dropped and the circle
    fitted again (three rounds at most); None when fewer than `least` points stay near it, or it
    lies more than `reach` off in centre or radius, or reaches out of the outline."""
    kept = np.ones(len(points), dtype=bool)
    for _ in range(3):
        fit = circle_through(points[kept])
        residual = np.abs(np.hypot(*(points - fit[:2]).T) - fit[2])
        trimmed = residual <= max(FACE_EDGE_SPREAD_PX, FACE_EDGE_OUTLIER * median_of(residual[kept]))
        # The same points kept would give the same fit again.
        if (trimmed == kept).all():
            break
        kept = trimmed
    moved = np.hypot(*(fit[:2] - centre))
    # The face lies within the outline (face, side band and shadow): a circle reaching out of it by
    # more than a rim's scatter is not the face.
    if (np.count_nonzero(kept) < least or abs(fit[2] - radius) > reach or moved > reach
            or moved + fit[2] > radius + FACE_EDGE_SPREAD_PX):
        return None
    return fit[:2]
