"""Edge tests of Varanasi recognition: is a disc of a size there that colour cannot show?"""
from __future__ import annotations

import numpy as np

from vision.varanasi_circles import (
    best_circles,
    best_circles_and_grid_points,
    centres_as_good,
    circles_beyond,
    rim_scores,
)
from vision.varanasi_colour import linear_quantiles
from vision.varanasi_drawn_lines import rim_of_drawn_line, shaded_board
from vision.varanasi_edge_context import (
    EdgeContext,
    bottom_under_found,
    disc_below,
    present_under,
    tower_level,
)
from vision.varanasi_geometry import DarkLine, PixelSearch
from vision.varanasi_params import (
    ALONE_MIDPOINT,
    EDGE_MARGIN_PX,
    EDGE_STRICTNESS,
    FACE_NOISE_SAMPLING,
    GRID_PX,
    MIN_RING_PIXELS,
    OUTSIDE_BAND_PX,
    PRESENCE_MIDPOINT,
    PRESENCE_SOFTNESS,
    SAME_COLOUR_MIDPOINT,
    SOBEL_GAIN,
    STEP_SHARE,
    VALLEY_NOISE_FACTOR,
)
from vision.varanasi_pixels import (
    circle_window,
    level_growth,
    most_common,
    ring_colour,
    ring_counts,
    size_spacing,
)
from vision.varanasi_profile import ParsedProfile


def edge_presence(
    coverage: float, frame: ParsedProfile, alone: bool = False, colour: int | None = None, same_colour: bool = False
) -> float:
    """Presence from rim coverage, judged against how much rim a lone disc of its colour (when
    known, else of the weakest colour) showed in calibration; a disc with nothing else in its
    tower to back it up must show nearly all of that, one on a disc of its own colour less."""
    midpoint = _presence_midpoint(frame, alone, colour, same_colour)
    return float(1.0 / (1.0 + np.exp(-(coverage - midpoint) / PRESENCE_SOFTNESS)))


def _presence_midpoint(frame: ParsedProfile, alone: bool = False, colour: int | None = None, same_colour: bool = False) -> float:
    """The rim coverage at which `edge_presence` is one half."""
    rim = frame.weakest_rim if colour is None else frame.rims[colour]
    return (ALONE_MIDPOINT if alone else SAME_COLOUR_MIDPOINT if same_colour else PRESENCE_MIDPOINT) * rim


def edge_candidates(sizes: list[int], accepted: dict, context: EdgeContext) -> tuple[dict, set, set]:
    """size -> (centre, presence, colour label just inside its rim) of a disc of each of `sizes`
    judged by its rim alone, near the disc it would rest on, away from the rims of the discs
    already accepted; the sizes judged by a dark line (on a disc of their own colour); and those
    of them found beyond the overhang of the fitted centre below. The first rim tests of all
    sizes share one pass."""
    frame, pieces = context.frame, context.frame.pieces
    known = _known_rims(accepted, context)
    searches = []
    for size in sizes:
        radius = context.radii[size] * level_growth(tower_level(size, accepted), pieces)
        below = disc_below(size, accepted)
        smaller = [s for s in accepted if s < size]
        reference = accepted[below][0] if below is not None else (accepted[max(smaller)][0] if smaller else context.seed)
        searches.append((reference, radius, context.step if accepted else context.reach))
    # A disc can overhang the one it rests on, its centre beyond the step around it, and then the
    # colour chain does not find it either when it is the colour of the disc under that one (its
    # footprint is cut where it crosses that disc's colour). Its whole rim shows, and drew a
    # centre-vote peak of its size: it is looked for at such peaks too, a grid step around each
    # (peaks lie on the reduced pixels, two full ones apart), the better of the two kept.
    at_peaks = [(index, centre) for index, size in enumerate(sizes)
                for centre in _peaks_resting_on(size, accepted, context)]
    found = best_circles(context.edges, searches + [(centre, searches[index][1], GRID_PX)
                                                    for index, centre in at_peaks],
                         known, context.gap, EDGE_STRICTNESS)
    for (index, _), better in zip(at_peaks, found[len(sizes):]):
        if better[1] > found[index][1]:
            found[index] = better
    found = found[: len(sizes)]
    tests = {}  # size -> (centre, coverage, ring colour, the colour below when it is the same)
    valleys: dict[int, tuple[DarkLine, int, list]] = {}  # the dark-line tests, by the line they look for
    for size, (reference, radius, _), (centre, coverage) in zip(sizes, searches, found):
        below = disc_below(size, accepted)
        # The colour label of the disc this one would rest on (None: board-like, e.g. white).
        below_colour = accepted[below][2] if below is not None else None
        # The colour just inside its rim tells a disc on one of its own colour; with nothing
        # below, it is wanted only if this disc may be accepted (read below, once that is known).
        ring, same_colour = _UNREAD, False
        if below is not None:
            # Every label's count, board and other after the colours: the board-like test reads
            # the same ring.
            labels_counts = ring_counts(context.labels, len(frame.colours.names) + 2, centre, radius)
            counts = labels_counts[: len(frame.colours.names)]
            ring = most_common(counts)
            same_colour = ring is not None and ring == below_colour and not _steps_in_colour(counts, ring, frame)
            if ring == below_colour and not same_colour:
                # Its colour is then not the one below, as in the colour chain.
                ring = most_common(counts, exclude=ring)
        if same_colour and board_like(labels_counts, frame):
            # A disc the colour of the board (white on cream under a dim lamp) shows board just
            # inside its rim and only a fringe of the colour below, blurred across its edge: that
            # fringe does not make it a disc on one of its own colour, unless the disc below
            # looks like board at its rim too (white on white).
            lower_radius = context.radii[below] * level_growth(tower_level(below, accepted), pieces)
            same_colour = board_like_ring(context, accepted[below][0], lower_radius)
        tests[size] = (centre, coverage, ring, below_colour if same_colour else None)
        if same_colour:
            # On a disc of its own colour only the thin dark line of its side shows; shadows
            # and face texture of that colour would pass for edges.
            lower_radius = context.radii[below] * level_growth(tower_level(below, accepted), pieces)
            # A size pieced together from the tower's other rims has the board or a disc lower
            # down beyond some of its arcs.
            lower_down = {accepted[s][2] for s in present_under(below, accepted)} - {below_colour, None}
            line = _dark_line(context, below_colour, accepted[below][0], lower_radius, frozenset(lower_down))
            # Such a disc may sit as far off the one below as it can without overhanging it (a 1 on
            # a 4: 10 mm), and at least MAX_STEP_OFFSET_MM; colour finds the others wherever they are.
            overhang = context.radii[below] - context.radii[size]
            search = (reference, radius, max(context.step, overhang))
            valleys.setdefault(id(line), (line, below_colour, []))[2].append((size, search, overhang, lower_radius))
    # Sizes resting on the same disc share their dark-line test's pass.
    found_farther = set()
    for line, colour, group in valleys.values():
        # Where the grid steps over a line, every pixel is tried only as far off as an edge test
        # looks, and only if a grid point sees half the coverage that would make the disc present.
        midpoint = _presence_midpoint(frame, colour=colour, same_colour=True)
        pixels = PixelSearch(context.step, 0.5 * midpoint)
        found, grid_points = best_circles_and_grid_points(context.edges, [search for _, search, *_ in group], known,
                                                          context.gap, valley=line, pixels=pixels)
        for (size, *_), (centre, coverage) in zip(group, found):
            tests[size] = (centre, coverage, *tests[size][2:])
        weak = [(test, best, point) for test, best, point in zip(group, found, grid_points) if 0.0 < best[1] < midpoint]
        for size, (centre, coverage) in _farther_lines(context, weak, known, line):
            tests[size] = (centre, coverage, *tests[size][2:])
            found_farther.add(size)
    candidates = {}
    for size, (centre, coverage, ring, colour_below) in tests.items():
        radius = searches[sizes.index(size)][1]
        presence = edge_presence(
            coverage, frame, alone=not accepted, colour=colour_below, same_colour=colour_below is not None
        )
        if not accepted and context.neighbours and presence >= 0.5:
            # A disc alone in its tower stands only on rim no tower read before explains: a patch
            # of board squeezed between towers is ringed by their rims and the board's drawing.
            # (That share is never more than the coverage, so only a disc found present is asked.)
            own = rim_scores(context.edges, centre, radius, context.neighbours, context.gap, EDGE_STRICTNESS,
                             whole_circle=True)[0][0]
            presence = edge_presence(float(own), frame, alone=True)
        if presence >= 0.5 and (_shows_no_face(context, accepted, size, centre, radius)
                                or rim_of_drawn_line(context, accepted, known, size, centre, radius)):
            presence = 0.0
        if ring is _UNREAD and presence >= 0.5:
            ring = ring_colour(context.labels, len(frame.colours.names), centre, radius)
        candidates[size] = (centre, presence, ring)
    return candidates, {size for size, test in tests.items() if test[3] is not None}, found_farther


def _farther_lines(context: EdgeContext, weak: list, known, line: DarkLine) -> list[tuple[int, tuple]]:
    """(size, (centre, coverage)) of the dark-line tests `weak` ((size, search, overhang, radius of
    the disc below), (centre, coverage) found, the best point of that search's grid), all resting
    on one disc, whose line shows better farther off: by as much as that disc's own centre is
    uncertain, and within the overhang of a centre where it may truly lie. A blurred rim shows
    fully from several pixels of centres, and the sharpest circle among them can lean 4-5 px to
    one side. Asked only where
    the line showed near but too little to make the disc present: a disc just beyond the reach
    still lies in the band of the nearest circles over part of its arc."""
    if not weak:
        return []
    (_, (reference, _, _), _, lower_radius), _, _ = weak[0]
    plateau = _centres_as_good(context, reference, lower_radius)
    spread = float(np.hypot(*(plateau - reference).T).max())
    wider = [(test, best, point) for test, best, point in weak if test[2] + spread > test[1][2]]
    # The wider search's grid holds the nearer one's: only a circle beyond it can show the line
    # better (the nearer search found the best circle within it already).
    found = circles_beyond(context.edges, [(reference, radius, step, overhang + spread, point)
                                           for (_, (_, radius, step), overhang, _), _, point in wider],
                           known, context.gap, valley=line)
    return [(size, far) for ((size, (_, _, step), overhang, _), best, _), far in zip(wider, found)
            if far is not None and far[1] > best[1] and _rests_on(far[0], reference, step, plateau, overhang)]


def _centres_as_good(context: EdgeContext, centre, radius: float) -> np.ndarray:
    """Where the centre of an accepted disc may truly lie: the whole pixels within half a size
    step of its fitted centre (where the colour chain fits it) at which its rim shows as well."""
    return centres_as_good(context.edges, centre, radius, 0.5 * size_spacing(context.radii))


def _rests_on(centre, reference, step: float, plateau: np.ndarray, overhang: float) -> bool:
    """Whether a disc at `centre` may rest on the disc below: within the step around its fitted
    centre `reference`, or within `overhang` of a centre `plateau` where it may truly lie."""
    near = float(np.hypot(*(np.asarray(centre) - reference))) <= step
    return near or float(np.hypot(*(plateau - centre).T).min()) <= overhang


def _known_rims(accepted: dict, context: EdgeContext) -> list[tuple[float, float, float]]:
    """(x, y, radius) of the accepted discs, whose rims edge tests leave out."""
    pieces = context.frame.pieces
    return [(c[0], c[1], context.radii[s] * level_growth(tower_level(s, accepted), pieces)) for s, (c, *_) in accepted.items()]


def _peaks_resting_on(size: int, accepted: dict, context: EdgeContext) -> list[np.ndarray]:
    """The centre-vote peaks of `size` at which a disc of that size, with nothing found on it yet,
    could rest on the disc it would lie on: beyond the step around that disc (the search there
    covers nearer ones) and over it (a disc whose centre is not over the one below falls off).
    Under discs already found, a peak of a bigger size is as often pieced from their rims and
    shadows (on the tilted re-shoot, a ghost 3 between a 4 and the 2 on it, at a peak 6 mm off)."""
    below = disc_below(size, accepted)
    if below is None or any(s < size for s in accepted):
        return []
    return [centre for peak_size, centre in context.peaks if peak_size == size
            and context.step < float(np.hypot(*(centre - accepted[below][0]))) < context.radii[below]]


def _shows_no_face(context: EdgeContext, accepted: dict, size: int, centre, radius: float) -> bool:
    """Whether a bottom disc under accepted discs shows no face of its own: the ring it would
    show around the disc right above it is the board beyond its rim, in shade or partly so. A
    tower's shadow and, through a tilted camera, its side band lie beside it on the board and
    their outer edge can pass for the rim of a bigger disc under it; a real disc's face has its
    own colour there. Not asked when the set has a colour the camera can barely tell from the
    board (white on cream): such a face is the board's colour, a shade of it only darker."""
    if not bottom_under_found(size, accepted) or context.frame.board_like_colours:
        return False
    top = max(s for s in accepted if s < size)  # the disc right above it
    top_centre = accepted[top][0]
    top_radius = context.radii[top] * level_growth(tower_level(top, accepted), context.frame.pieces)
    window, yy, xx = circle_window(context.labels.shape, centre, radius + EDGE_MARGIN_PX + OUTSIDE_BAND_PX)
    distance2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    ring = (distance2 <= (radius - EDGE_MARGIN_PX) ** 2) & (
        (xx - top_centre[0]) ** 2 + (yy - top_centre[1]) ** 2 > (top_radius + EDGE_MARGIN_PX) ** 2)
    beyond = (distance2 >= (radius + EDGE_MARGIN_PX) ** 2) & (
        distance2 <= (radius + EDGE_MARGIN_PX + OUTSIDE_BAND_PX) ** 2)
    if np.count_nonzero(ring) < MIN_RING_PIXELS or np.count_nonzero(beyond) < MIN_RING_PIXELS:
        return False
    lab = context.edges.lab_bytes[window]
    return shaded_board(np.median(lab[ring], axis=0), np.median(lab[beyond], axis=0), context.frame)


# The ring colour of an edge candidate not read, as nothing will ask for it (see `edge_candidates`).
_UNREAD = -1


def _steps_in_colour(counts: np.ndarray, lower: int, frame: ParsedProfile) -> bool:
    """Whether the colour labels just inside a disc's rim (`counts`, per colour) that are neither
    the colour below (`lower`) nor one the camera can barely tell from the board hold at least
    STEP_SHARE pixels per pixel of the colour below: the disc differs in colour from the one it
    rests on along that much of its rim (a disc of the lower colour on top, far off-centre,
    covers the rest), so it is not one on its own colour, judged by a dark line alone."""
    others = counts.copy()
    others[[lower, *frame.board_like_colours]] = 0
    return others.sum() >= STEP_SHARE * counts[lower]


def board_like_ring(context: "EdgeContext", centre, radius: float) -> bool:
    """Whether the ring just inside a circle is board-like (see `board_like`)."""
    return board_like(ring_counts(context.labels, len(context.frame.colours.names) + 2, centre, radius), context.frame)


def board_like(counts: np.ndarray, frame: ParsedProfile) -> bool:
    """Whether a ring's label counts (`ring_counts` of every label, board and other included)
    hold more pixels labelled board, or a colour the camera can barely tell from the board (white
    on cream), than of any other label (other included)."""
    board = len(frame.colours.names)
    like = np.zeros(board + 2, dtype=bool)
    like[[board, *frame.board_like_colours]] = True
    return counts[like].sum() > counts[~like].max(initial=0.0)


def _dark_line(context: EdgeContext, colour: int, centre, radius: float, lower_down: frozenset) -> DarkLine:
    """How the rim of a disc resting on a disc of `colour` (centre, radius) is judged: darker
    than both its sides by a multiple of that face's own pixel noise (a black face is far less
    noisy than the board, whose noise sets the edge threshold), at most by the step the edge
    threshold stands for. Beyond the rim lies the disc it rests on, so not the board nor the
    colours (labels) `lower_down` of the discs under that one; the colour of the disc below
    itself is not required there: its label is the most common one near its rim, which a disc
    far off-centre on top of it can take over. Once per tower and disc below."""
    key = (colour, float(centre[0]), float(centre[1]), radius, lower_down)
    if key not in context.dark_lines:
        context.dark_lines[key] = _measure_dark_line(context, colour, centre, radius, lower_down)
    return context.dark_lines[key]


def _measure_dark_line(context: EdgeContext, colour: int, centre, radius: float, lower_down: frozenset) -> DarkLine:
    edges, labels = context.edges, context.labels
    bar = edges.threshold / SOBEL_GAIN
    window, yy, xx = circle_window(labels.shape, centre, radius)
    # Every third pixel each way is plenty for a noise estimate (hundreds of pixels on the
    # smallest face).
    sample = tuple(slice(axis.start, axis.stop, FACE_NOISE_SAMPLING) for axis in window)
    yy, xx = yy[::FACE_NOISE_SAMPLING], xx[:, ::FACE_NOISE_SAMPLING]
    on_face = ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2 <= radius * radius) & (labels[sample] == colour)
    face = edges.lab_bytes[sample][on_face, 0].astype(np.float32)
    depth = bar
    if len(face) >= MIN_RING_PIXELS:
        (middle,) = linear_quantiles(face, (0.5,))
        (spread,) = linear_quantiles(np.abs(face - middle), (0.5,))
        noise = 1.4826 * float(spread)  # robust standard deviation
        depth = min(VALLEY_NOISE_FACTOR * noise, bar)
    allowed = np.ones(256, dtype=bool)
    allowed[[len(context.frame.colours.names), *lower_down]] = False
    return DarkLine(depth, labels, allowed)
