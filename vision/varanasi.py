"""Varanasi recognition: one camera frame + calibration profile -> towers of discs with confidences.

Seen from above a tower is nested circles, biggest at the bottom. Towers are found by Hough
voting for centres at the radii calibration measured for each size (on a half-size frame). Each
tower is then read at full resolution around its vote peak:
- by colour (`_colour_chain`): what is neither board nor the colour of the disc below is the
  footprint of the discs above it; the circle that fits it gives the next disc's size;
- by edges, for every other size: a rim of that size near the disc below (a thin dark line when
  it sits on a disc of its own colour) reveals a disc colour cannot (same colour as the one
  below, or white on a cream board).
The ring each disc shows below the next gives its colour probabilities; colours are settled per
size with the inventory (each colour at most once per size), by the Hungarian method.
"""
from __future__ import annotations

import copy
import math
import threading
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.varanasi_assignment import assign
from vision.varanasi_colour import ColourModel, colour_moments, lab_to_srgb, linear_quantiles
from vision.varanasi_geometry import (
    GRID_PX,
    RIM_ANGLES,
    SOBEL_GAIN,
    WORK_SCALE,
    DarkLine,
    EdgeField,
    PixelSearch,
    ScaleField,
    best_circle,
    best_circles,
    best_circles_and_grid_points,
    centre_vote_peaks,
    centres_as_good,
    circles_beyond,
    edge_field,
    full_resolution_threshold,
    radius_maps,
    reduce,
    rim_hits,
    rim_scores,
    to_full,
    to_work,
)
from vision.varanasi_pieces import PieceSet
from vision.varanasi_scene import (
    board_distance2,
    board_distance2_by_terms,
    board_terms,
    board_terms_of,
    board_like_grid,
    cells_near_circles,
)

# How far (mm) a disc's centre may sit off the centre of the disc below it.
MAX_STEP_OFFSET_MM = 4.0
# How far (mm) a vote peak may lie from the bottom disc's centre (it may come from a disc higher up).
SEED_REACH_MM = 6.0
# Camera height assumed for the slight growth of higher discs (the issue says 40-55 cm); at this
# distance each 5 mm level looks about 1% larger.
CAMERA_HEIGHT_MM = 480.0
# A vote peak is worth examining once it reaches this share of the weakest disc's peak in
# calibration (a white disc on a cream board shows only its shadowed side).
SEED_SHARE = 0.6
# A weaker vote peak, down to half that share, is examined too where nearly all of the frame
# around it (within half the smallest disc's radius) is labelled a disc colour: a tower's middle
# is its discs' faces, crossed only by the thin rims of the discs on it (measured: at least 0.97 on
# 99% of the bench's and synthetic towers), while a weak peak on the board lies on board, drawn
# lines and shadows (at most 0.79 there). A disc's rim votes less where the view shows it as an
# ellipse (a tilted camera's corners: 10% on a synthetic 4red at -10 degrees, 0.58 of the bar).
WEAK_SEED_SHARE = SEED_SHARE / 2
COLOURED_MIDDLE_SHARE = 0.9
# Rim coverage turns into a presence probability around this share of the weakest rim seen in
# calibration (a white disc on a cream board shows only its shadowed side).
PRESENCE_MIDPOINT = 0.55
PRESENCE_SOFTNESS = 0.06
# On a disc of its own colour, a disc's rim shows as a dark line only where its side and its
# shadow fall, about half of it; sizes pieced together from the rims and shadows of the tower's
# other discs mostly reach about a third (on the bench: real ones 0.42-0.54, made-up ones at
# most 0.35 but for two). The bench reads best from 0.4 to 0.45 of the rim; 0.35 lets ghosts in.
SAME_COLOUR_MIDPOINT = 0.4
# There the line must be darker than both sides by this many standard deviations of that face's
# pixel noise (1 lets face texture make rims up; 2 loses a black disc on black).
VALLEY_NOISE_FACTOR = 1.5
# A disc whose ring just inside its rim is mostly the colour below is still judged by its colour
# step when other colours hold at least this many pixels there per pixel of the colour below.
STEP_SHARE = 0.5
# A face's pixel noise is measured on every this many pixels each way.
FACE_NOISE_SAMPLING = 3
# A disc found by edges alone, with no coloured disc in its tower, needs nearly as much rim as the
# weakest calibration disc showed: arcs of the board's drawing must not make towers.
ALONE_MIDPOINT = 0.9
# The colour footprint shortlists this many sizes, nearest radius first; the nearest stands
# unless its rim does not show.
CHAIN_SIZE_CHOICES = 2
# A size bigger than the bottom disc's is kept as a doubtful slot when its presence reaches this.
DOUBTFUL = 0.05
# Labels are read on the reduced frame, box-averaged over this many pixels across.
LABEL_SMOOTHING = 3
# The board around a tower is read from a crop border this many pixels wide, if at least this
# share of it looks like the calibrated board; its covariance floor is tighter than a colour's
# because the average of LABEL_SMOOTHING**2 pixels has little noise left.
LOCAL_BORDER = 2
LOCAL_BOARD_SHARE = 0.5
LOCAL_BOARD_FLOOR = 1.0
# Pixels farther than this (in standard deviations) from every colour and the board are OTHER.
LABEL_SIGMA = 4.0
# Edge-only tests need edges this many times stronger than the noise threshold: disc faces
# have texture; much more would lose colour edges, which JPEG's chroma subsampling blurs.
EDGE_STRICTNESS = 1.5
# Edge tests ignore this band (mm) around rims already found: their thick edges would answer.
EDGE_GAP_MM = 2.5
# A disc's own colour is read this far (in size spacings) inside its rim, clear of its side.
RIM_INSET = 0.2
# The colour chain's circle is refitted to the face's own edge (see `_face_centre`): points of one
# rim scatter by about a pixel (texture, the pixel grid), the next rim lies a size step away, so
# points farther than this from the fitted circle, and than FACE_EDGE_OUTLIER times the median
# distance of the points kept (a soft view scatters them more), belong to something else.
FACE_EDGE_SPREAD_PX = 1.5
FACE_EDGE_OUTLIER = 2.5
# Directions (cos, sin; column vectors) of the rays `_face_edge_fit` casts from a centre.
_RAY_COS, _RAY_SIN = (f(np.linspace(0.0, 2.0 * np.pi, RIM_ANGLES, endpoint=False))[:, None] for f in (np.cos, np.sin))
# Colour rings are read this far (full-res pixels) inside the circles bounding them: rims blur.
EDGE_MARGIN_PX = 1.0
MIN_RING_PIXELS = 4
# A colour ring leaves out pixels matching no colour (sides, shadows) unless fewer than this share
# of it match one (0.5 cost a synthetic disc; 0.25 changed no synthetic frame).
COLOURED_SHARE = 0.25
# A ring counts as the board in shade when its chromaticity lies this share of the way, or less,
# from the board's beyond the rim towards the nearest colour of the set (see `_shaded_board`).
SHADE_CHROMA_SHARE = 0.25
# A drawn band at a rim reaches this close (px) to it: the rim test's band (RIM_BAND_PX either
# side) and a fitted circle a pixel off.
BAND_NEAR_PX = 2
# Width (px) of the band beyond a rim whose median stands for what the disc rests on.
OUTSIDE_BAND_PX = 3.0
# Probabilities never reach 0 or 1: the tracker must be able to weigh a doubtful reading.
PROBABILITY_FLOOR = 1e-3
# An assignment no reading allows (finite: the Hungarian method's potentials must stay numbers).
IMPOSSIBLE_COST = 1e6
# A tower the recogniser cannot see costs this much per disc in `log_likelihood`.
MISSING_DISC_LOG = np.log(PROBABILITY_FLOOR)
# Share of the calibrated board area that must still look like board for full confidence; below
# BOARD_GONE the board is taken to be out of view. Confidence then scales with the share seen.
BOARD_VISIBLE = 0.85
BOARD_GONE = 0.3
HIDDEN_BOARD_CONFIDENCE = 0.2


@dataclass(frozen=True)
class DiscReading:
    """One size slot of a tower: is a disc of this size there, where, and which colour."""

    size: int
    centre: tuple[float, float]
    radius: float
    presence: float
    colours: tuple[tuple[str, float], ...]  # (name, probability), most likely first
    colour: str

    def colour_probability(self, name: str) -> float:
        return max(PROBABILITY_FLOOR, dict(self.colours).get(name, 0.0))


@dataclass(frozen=True)
class TowerReading:
    """Every size slot from the bottom disc's size down, present or not, bottom first."""

    slots: tuple[DiscReading, ...]

    @property
    def discs(self) -> tuple[DiscReading, ...]:
        return tuple(slot for slot in self.slots if slot.presence >= 0.5)

    def log_likelihood(self, codes: dict[int, str]) -> float:
        """log P(this tower reading | the tower is exactly `codes`: size -> colour)."""
        total = 0.0
        for slot in self.slots:
            presence = float(np.clip(slot.presence, PROBABILITY_FLOOR, 1 - PROBABILITY_FLOOR))
            if slot.size in codes:
                total += np.log(presence) + np.log(slot.colour_probability(codes[slot.size]))
            else:
                total += np.log(1 - presence)
        bigger = [size for size in codes if size not in {slot.size for slot in self.slots}]
        return total + MISSING_DISC_LOG * len(bigger)


@dataclass(frozen=True)
class VaranasiObservation:
    towers: tuple[TowerReading, ...]
    scene_confidence: float
    note: str | None = None

    def stacks(self) -> list[list[str]]:
        ordered = sorted((t for t in self.towers if t.discs), key=lambda t: t.discs[0].centre[0])
        return [[f"{d.size}{d.colour}" for d in t.discs] for t in ordered]

    def tower_confidence(self, tower: TowerReading) -> float:
        confidence = 1.0
        for slot in tower.slots:
            if slot.presence >= 0.5:
                confidence *= slot.presence * slot.colour_probability(slot.colour)
            else:
                confidence *= 1.0 - slot.presence
        return confidence

    @property
    def confidence(self) -> float:
        towers = [self.tower_confidence(t) for t in self.towers if t.discs]
        return float(self.scene_confidence * (min(towers) if towers else 1.0))

    def to_json(self) -> dict:
        ordered = sorted((t for t in self.towers if t.discs), key=lambda t: t.discs[0].centre[0])
        evidence = {
            "towers": [
                {
                    "confidence": round(self.tower_confidence(t), 4),
                    "discs": [
                        {
                            "code": f"{d.size}{d.colour}",
                            "confidence": round(d.presence * d.colour_probability(d.colour), 4),
                            "presence": round(d.presence, 4),
                            "centre": [round(d.centre[0], 1), round(d.centre[1], 1)],
                            "radius": round(d.radius, 1),
                            "alternatives": {
                                f"{d.size}{name}": round(p, 4) for name, p in d.colours[:3] if p >= 0.01
                            },
                        }
                        for d in t.discs
                    ],
                }
                for t in ordered
            ],
            "scene_confidence": round(self.scene_confidence, 4),
        }
        if self.note:
            evidence["note"] = self.note
        return {
            "state": {"game": "varanasi", "stacks": self.stacks()},
            "confidence": round(self.confidence, 4),
            "evidence": evidence,
        }

    def best_log_likelihood(self, following: dict | None = None) -> float:
        """The log-likelihood of the reading itself. `following` is not used: discs leave the
        table as the game goes on, so no count carries over from one position to the next."""
        return self.log_likelihood(self.to_json()["state"])

    def log_likelihood(self, state_json) -> float:
        """How well a candidate state explains the frame; graded, never -inf.

        Candidate stacks are matched to the towers seen (in any order) by the Hungarian method;
        a tower seen but absent from the candidate, or a candidate stack not seen, costs what its
        discs' presence says.
        """
        stacks = _candidate_stacks(state_json)
        seen = [t for t in self.towers if t.discs]
        empty = np.array([t.log_likelihood({}) for t in seen])
        missing = np.array([MISSING_DISC_LOG * len(stack) for stack in stacks])
        total = float(empty.sum() + missing.sum())
        if seen and stacks:
            gain = np.array([
                [t.log_likelihood(stack) - empty[i] - missing[j] for j, stack in enumerate(stacks)]
                for i, t in enumerate(seen)
            ])
            total += sum(max(0.0, gain[i, j]) for i, j in assign(-gain))
        return total


def _candidate_stacks(state_json) -> list[dict[int, str]]:
    if not isinstance(state_json, dict) or state_json.get("game") != "varanasi":
        raise ArbiterError('a Varanasi state is an object with "game": "varanasi" and "stacks"')
    stacks = state_json.get("stacks")
    if not isinstance(stacks, list):
        raise ArbiterError('a Varanasi state needs "stacks": a list of towers')
    parsed = []
    for stack in stacks:
        if not isinstance(stack, list):
            raise ArbiterError("each Varanasi stack is a list of disc codes such as \"4red\"")
        codes = {}
        for code in stack:
            if not isinstance(code, str) or len(code) < 2 or not code[0].isdigit():
                raise ArbiterError(f"not a disc code: {code!r} (size digit then colour, e.g. \"2blue\")")
            codes[int(code[0])] = code[1:]
        parsed.append(codes)
    return parsed


@dataclass(frozen=True)
class _Frame:
    """What recognition needs from the profile, parsed once."""

    pieces: PieceSet
    scale: ScaleField
    colours: ColourModel
    # The colour of a disc's ring is judged with greys (black, white) growing lighter along the
    # lamp's grey axis: a black face lit lighter than in calibration takes more of a tinted
    # lamp's tint. Pixel labels keep the plain lightness axis: they shape footprints and rim
    # tests, and with the grey axis white pixels on a cream board moved between white and board
    # (the plain bench lost a 2white and a 1yellow on S1 ill03b). Rings, not labels, also allow
    # for glare on a face (`GlareModel`), whose clipped channels turn its hue: the ring's median
    # is what names a disc, and it is where an orange face washed yellow was lost.
    ring_colours: ColourModel
    board: dict
    board_area: np.ndarray | None
    weakest_rim: float
    rims: tuple[float, ...]  # rim coverage of a lone disc of each colour, in colour order
    weakest_votes: float
    image_size: tuple[int, int] | None

    @cached_property
    def board_like_colours(self) -> tuple[int, ...]:
        """Colours whose calibrated mean would be labelled board (within LABEL_SIGMA of it): white
        on a cream board, which the camera can barely tell apart."""
        distance2 = board_distance2(self.colours.means, self.board)
        return tuple(int(i) for i in np.flatnonzero(distance2 <= LABEL_SIGMA ** 2))

    @cached_property
    def chromaticities(self) -> np.ndarray:
        """Each colour's calibrated mean as chromaticity (RGB shares, see `_chromaticity`)."""
        return _chromaticity(self.colours.means)

    @classmethod
    def from_profile(cls, profile: dict) -> "_Frame":
        if not isinstance(profile, dict) or profile.get("game") != "varanasi":
            game = profile.get("game") if isinstance(profile, dict) else None
            raise ArbiterError(f"this profile is for {game!r}, not varanasi")
        try:
            pieces = PieceSet.from_json(profile["pieceset"])
            scale = ScaleField(*profile["px_per_mm"])
            colours = ColourModel.from_profile({c: profile["colours"][c] for c in pieces.colours})
            ring_colours = ColourModel.from_profile({c: profile["colours"][c] for c in pieces.colours}, tinted_greys=True,
                                                    glare=True)
            rims = tuple(float(profile["colours"][c]["rim_coverage"]) for c in pieces.colours)
            weakest = min(rims)
            weakest_votes = min(float(profile["colours"][c]["rim_votes"]) for c in pieces.colours)
            size = profile.get("image_size")
            image_size = (int(size[0]), int(size[1])) if size else None
            board = profile["board"]
            area = profile.get("board_area")
            board_area = np.array([[ch == "#" for ch in row] for row in area]) if area else None
        except (KeyError, TypeError, ValueError, np.linalg.LinAlgError) as exc:
            raise ArbiterError(f"Varanasi profile is incomplete or damaged ({exc.__class__.__name__}: {exc}); calibrate again") from None
        return cls(pieces, scale, colours, ring_colours, board, board_area, weakest, rims, weakest_votes, image_size)


def recognize(image_bgr: np.ndarray, profile: dict) -> VaranasiObservation:
    """Read every tower in the frame; odd frames give a low-confidence observation, not an error."""
    frame = _parsed_profile(profile)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or min(image_bgr.shape[:2]) < 16:
        raise ArbiterError("the frame is not a colour image")
    height, width = image_bgr.shape[:2]
    if frame.image_size is not None and (width, height) != frame.image_size:
        # Radii and the scale across the view are in the calibration photo's pixels.
        raise ArbiterError(
            f"the frame is {width}x{height} but the profile was calibrated on "
            f"{frame.image_size[0]}x{frame.image_size[1]} frames; calibrate this camera mode"
        )
    edges = edge_field(reduce(image_bgr))
    threshold = full_resolution_threshold(image_bgr)
    towers: list[TowerReading] = []
    # The bottom circle (x, y, radius) of each tower read, as Python numbers: every seed is
    # compared with them (about 70 comparisons a frame).
    outlines: list[tuple[float, float, float]] = []
    peaks, weak_peaks = _vote_peaks(edges, frame)
    for seed, weak in _seeds(peaks, weak_peaks):
        # A weaker vote peak inside a tower already read is that tower again (an upper disc).
        if any(np.hypot(seed[0] - x, seed[1] - y) < radius for x, y, radius in outlines):
            continue
        if len(towers) == len(frame.pieces.sizes) * len(frame.pieces.colours):
            break  # a tower per disc of the set already: the rest cannot be towers
        if weak and not _coloured_middle(edges.lab, frame, seed):
            continue
        tower = _read_tower(image_bgr, edges.lab, frame, seed, threshold, tuple(outlines), peaks)
        if tower is not None:
            towers.append(tower)
            bottom = tower.discs[0]
            outlines.append((*bottom.centre, bottom.radius))
    towers = _settle_colours(tuple(towers), frame.pieces)
    scene, note = _scene_confidence(edges.lab, frame, towers)
    return VaranasiObservation(towers, scene, note)


# The last few profiles parsed, by identity: a camera's frames all come with one profile, whose
# parsing (colour models, board area) costs about 0.3 ms a frame. Each is kept with a copy of
# the profile as it was parsed, so that a profile changed in place is parsed again.
_PARSED_PROFILES: dict[int, tuple[dict, dict, _Frame]] = {}
_PARSED_PROFILES_KEPT = 4
# A web page and a table's tracker may read frames from two threads.
_PARSED_PROFILES_LOCK = threading.Lock()


def _parsed_profile(profile: dict) -> _Frame:
    with _PARSED_PROFILES_LOCK:
        kept = _PARSED_PROFILES.get(id(profile))
        try:
            if kept is not None and kept[0] is profile and kept[1] == profile:
                return kept[2]
        except (TypeError, ValueError):  # values that do not compare (arrays): parsed again
            pass
        frame = _Frame.from_profile(profile)
        while len(_PARSED_PROFILES) >= _PARSED_PROFILES_KEPT:
            _PARSED_PROFILES.pop(next(iter(_PARSED_PROFILES)))
        # The profile itself is kept too, so that its id cannot be taken by another object.
        _PARSED_PROFILES[id(profile)] = (profile, copy.deepcopy(profile), frame)
        return frame


def _vote_peaks(edges, frame: _Frame) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """(x, y, radius) of each centre-vote peak over the seed bar, and of each weaker one over
    WEAK_SEED_SHARE, full-resolution pixels, strongest first, as Python numbers (peaks are
    compared one by one, which costs several times more on numpy's scalars)."""
    radii = radius_maps(edges.shape, frame.scale, frame.pieces.radii_mm)
    peaks = centre_vote_peaks(edges, radii, WEAK_SEED_SHARE * frame.weakest_votes)
    peaks.sort(reverse=True)
    # Compared in float32, as `centre_vote_peaks` compares its bar.
    bar = float(np.float32(SEED_SHARE * frame.weakest_votes))
    full = [(v > bar, (x / WORK_SCALE, y / WORK_SCALE, r / WORK_SCALE)) for v, x, y, r in peaks]
    return [peak for strong, peak in full if strong], [peak for strong, peak in full if not strong]


def _seeds(peaks, weak_peaks=()) -> list[tuple[np.ndarray, bool]]:
    """(centre, weak) of vote peaks, strongest first, one per tower (peaks inside a kept one's
    circle are dropped); the weak peaks come after every peak over the seed bar."""
    kept: list[tuple[float, float, float, bool]] = []
    for weak, group in ((False, peaks), (True, weak_peaks)):
        for x, y, r in group:
            if all((x - kx) ** 2 + (y - ky) ** 2 > max(r, kr) ** 2 for kx, ky, kr, _ in kept):
                kept.append((x, y, r, weak))
    return [(np.array([x, y]), weak) for x, y, _, weak in kept]


def _coloured_middle(work_lab, frame: _Frame, seed) -> bool:
    """Whether nearly all of the frame within half the smallest disc's radius of `seed` (full
    pixels) is labelled a disc colour, as a tower's middle is (see WEAK_SEED_SHARE)."""
    half = max(1, round(to_work(min(frame.pieces.radii_mm) * float(frame.scale.at(*seed)) / 2)))
    x, y = (int(round(to_work(v))) for v in seed)
    window = work_lab[max(0, y - half): y + half + 1, max(0, x - half): x + half + 1]
    labels = _labels(window, frame)
    return np.count_nonzero(labels < len(frame.colours.names)) >= COLOURED_MIDDLE_SHARE * labels.size


def _edge_presence(
    coverage: float, frame: _Frame, alone: bool = False, colour: int | None = None, same_colour: bool = False
) -> float:
    """Presence from rim coverage, judged against how much rim a lone disc of its colour (when
    known, else of the weakest colour) showed in calibration; a disc with nothing else in its
    tower to back it up must show nearly all of that, one on a disc of its own colour less."""
    midpoint = _presence_midpoint(frame, alone, colour, same_colour)
    return float(1.0 / (1.0 + np.exp(-(coverage - midpoint) / PRESENCE_SOFTNESS)))


def _presence_midpoint(frame: _Frame, alone: bool = False, colour: int | None = None, same_colour: bool = False) -> float:
    """The rim coverage at which `_edge_presence` is one half."""
    rim = frame.weakest_rim if colour is None else frame.rims[colour]
    return (ALONE_MIDPOINT if alone else SAME_COLOUR_MIDPOINT if same_colour else PRESENCE_MIDPOINT) * rim


def _read_tower(
    image_bgr, work_lab, frame: _Frame, seed_full, threshold: float, outlines=(), peaks=(),
) -> TowerReading | None:
    """Read one tower at full resolution around its vote peak.

    First the discs that colour shows (`_colour_chain`), then every other size is tried on edges
    alone, away from the rims already found: that catches a disc on one of its own colour and a
    disc the colour of the board (a white disc on a cream board). `outlines` are the bottom
    circles (x, y, radius) of the towers read before, whose rims are not this tower's; `peaks`
    the frame's centre-vote peaks (x, y, radius; full pixels).
    """
    pieces = frame.pieces
    px_per_mm = float(frame.scale.at(*seed_full))
    reach = SEED_REACH_MM * px_per_mm
    step = MAX_STEP_OFFSET_MM * px_per_mm
    half = max(pieces.radii_mm) * px_per_mm * 1.15 + reach + 4
    height, width = image_bgr.shape[:2]
    # Even bounds so that the crop maps exactly onto the reduced frame used for labels.
    x0, y0 = (int(max(0, seed_full[0] - half)) // 2) * 2, (int(max(0, seed_full[1] - half)) // 2) * 2
    x1, y1 = (int(min(width, seed_full[0] + half + 1)) // 2) * 2, (int(min(height, seed_full[1] + half + 1)) // 2) * 2
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    origin = np.array([x0, y0], dtype=float)
    seed = np.asarray(seed_full, dtype=float) - origin
    edges = edge_field(image_bgr[y0:y1, x0:x1], threshold)
    work = work_lab[round(to_work(y0)): round(to_work(y1)), round(to_work(x0)): round(to_work(x1))]
    work_labels = _labels(work, frame)
    labels = cv2.resize(work_labels, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
    radii = {size: r * px_per_mm for size, r in zip(pieces.sizes, pieces.radii_mm)}
    # (size, centre in the crop) of the vote peaks in the crop, by the size whose radius voted.
    sized_peaks = tuple((min(pieces.sizes, key=lambda s: abs(radii[s] - r)), np.array([x, y]) - origin)
                        for x, y, r in peaks if x0 <= x < x1 and y0 <= y < y1)
    chain, handed_over = _colour_chain(work_labels, labels, edges, frame, seed, radii, reach, sized_peaks)
    # Edge tests, strongest rim first: a rim once accepted is excluded from the tests of the
    # other sizes, so a size between two real discs is not made up of pieces of their rims
    # and shadows (which a test in size order, before the smaller disc is known, would do).
    neighbours = tuple((x - x0, y - y0, r) for x, y, r in outlines)
    context = _EdgeContext(edges, labels, frame, seed, radii, reach, step, EDGE_GAP_MM * px_per_mm, neighbours,
                           sized_peaks)
    # size -> (centre, presence, colour label just inside its rim). A size the colour chain fitted
    # but found doubtful (a leaning stack leaves its footprint a crescent, whose inscribed circle
    # lies beside the disc) is not taken as found: the edge tests try it like any other size. Nor
    # is one that shows no colour label inside its rim: colour did not find it (a patch of glare
    # or shade on the disc below makes such a footprint).
    accepted = {size: disc for size, disc in chain.items() if disc[1] >= 0.5 and disc[2] is not None}
    while True:
        candidates, dark, farther = _edge_candidates([size for size in pieces.sizes if size not in accepted],
                                                     accepted, context)
        # A rim with a colour step goes before a dark line (a disc on one of its own colour):
        # the side and shadow of a disc not yet found can draw such a line at another size. So
        # does a dark line within the overhang of the fitted centre below before one found only
        # by allowing for that centre's error: the line of a smaller disc not yet found runs
        # inside the circle of a bigger one beside it, tangent to it.
        stepped = [size for size in candidates if size not in dark and candidates[size][1] >= 0.5]
        near = [size for size in candidates if size not in farther and candidates[size][1] >= 0.5]
        strongest = max(stepped or near or candidates, key=lambda size: candidates[size][1], default=None)
        if strongest is None or candidates[strongest][1] < 0.5:
            break
        accepted[strongest] = candidates[strongest]
    slots = []  # (size, centre, radius, presence), biggest first
    kept_doubt = _doubt_of_handed_over(handed_over, accepted, frame)
    for size in sorted(pieces.sizes, reverse=True):
        centre, presence, _ = accepted[size] if size in accepted else candidates[size]
        if size in kept_doubt and kept_doubt[size][1] > presence:
            centre, presence = kept_doubt[size]
        if size in chain or presence >= DOUBTFUL or any(p >= 0.5 for *_, p in slots):
            slots.append((size, centre, radii[size] * _growth(_level(size, accepted), pieces), presence))
    if not any(p >= 0.5 for *_, p in slots):
        return None
    return TowerReading(tuple(_colour_slots(edges.lab_bytes, labels, origin, frame, slots)))


@dataclass(frozen=True)
class _EdgeContext:
    """What the edge tests of one tower share: its crop's edges and labels, and distances (px)."""

    edges: EdgeField
    labels: np.ndarray
    frame: _Frame
    seed: np.ndarray
    radii: dict
    reach: float
    step: float
    gap: float
    # Outlines (x, y, radius in the crop) of the towers read before this one.
    neighbours: tuple
    # (size, centre in the crop) of the centre-vote peaks in the crop.
    peaks: tuple = ()
    # Dark-line tests by the disc they rest on: sizes and rounds share them.
    dark_lines: dict = field(default_factory=dict)

    # What the drawn-line test (`_rim_of_drawn_line`) reads of the crop's board, once per tower:
    # sizes and rounds ask it again of the same crop.
    @cached_property
    def board_mask(self) -> np.ndarray:
        """The pixels labelled board, as 0 and 1 bytes."""
        return (self.labels == len(self.frame.colours.names)).view(np.uint8)

    @cached_property
    def board_lab(self) -> np.ndarray | None:
        """The board's median Lab in the crop (see `_masked_median`)."""
        return _masked_median(self.edges.lab_bytes, self.board_mask)

    @cached_property
    def board_noise(self) -> float:
        """The board's pixel noise in chromaticity (see `_chromaticity_noise`)."""
        return _chromaticity_noise(self.edges.lab_bytes, self.board_mask)

    @cached_property
    def smooth_lab(self) -> np.ndarray:
        """The crop's Lab box-averaged as labels are (float32)."""
        return cv2.blur(self.edges.lab_bytes, (LABEL_SMOOTHING, LABEL_SMOOTHING)).astype(np.float32)


def _present_under(size: int, accepted: dict) -> list[int]:
    """The sizes of the accepted discs, found present, that lie under a disc of `size`."""
    return [s for s, (_, presence, _) in accepted.items() if s > size and presence >= 0.5]


def _level(size: int, accepted: dict) -> int:
    """How many discs of the tower, found present, lie under a disc of `size`."""
    return len(_present_under(size, accepted))


def _edge_candidates(sizes: list[int], accepted: dict, context: _EdgeContext) -> tuple[dict, set, set]:
    """size -> (centre, presence, colour label just inside its rim) of a disc of each of `sizes`
    judged by its rim alone, near the disc it would rest on, away from the rims of the discs
    already accepted; the sizes judged by a dark line (on a disc of their own colour); and those
    of them found beyond the overhang of the fitted centre below. The first rim tests of all
    sizes share one pass."""
    frame, pieces = context.frame, context.frame.pieces
    known = _known_rims(accepted, context)
    searches = []
    for size in sizes:
        radius = context.radii[size] * _growth(_level(size, accepted), pieces)
        below = _disc_below(size, accepted)
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
        below = _disc_below(size, accepted)
        # The colour label of the disc this one would rest on (None: board-like, e.g. white).
        below_colour = accepted[below][2] if below is not None else None
        # The colour just inside its rim tells a disc on one of its own colour; with nothing
        # below, it is wanted only if this disc may be accepted (read below, once that is known).
        ring, same_colour = _UNREAD, False
        if below is not None:
            # Every label's count, board and other after the colours: the board-like test reads
            # the same ring.
            labels_counts = _ring_counts(context.labels, len(frame.colours.names) + 2, centre, radius)
            counts = labels_counts[: len(frame.colours.names)]
            ring = _most_common(counts)
            same_colour = ring is not None and ring == below_colour and not _steps_in_colour(counts, ring, frame)
            if ring == below_colour and not same_colour:
                # Its colour is then not the one below, as in the colour chain.
                ring = _most_common(counts, exclude=ring)
        if same_colour and _board_like(labels_counts, frame):
            # A disc the colour of the board (white on cream under a dim lamp) shows board just
            # inside its rim and only a fringe of the colour below, blurred across its edge: that
            # fringe does not make it a disc on one of its own colour, unless the disc below
            # looks like board at its rim too (white on white).
            lower_radius = context.radii[below] * _growth(_level(below, accepted), pieces)
            same_colour = _board_like_ring(context, accepted[below][0], lower_radius)
        tests[size] = (centre, coverage, ring, below_colour if same_colour else None)
        if same_colour:
            # On a disc of its own colour only the thin dark line of its side shows; shadows
            # and face texture of that colour would pass for edges.
            lower_radius = context.radii[below] * _growth(_level(below, accepted), pieces)
            # A size pieced together from the tower's other rims has the board or a disc lower
            # down beyond some of its arcs.
            lower_down = {accepted[s][2] for s in _present_under(below, accepted)} - {below_colour, None}
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
        presence = _edge_presence(
            coverage, frame, alone=not accepted, colour=colour_below, same_colour=colour_below is not None
        )
        if not accepted and context.neighbours and presence >= 0.5:
            # A disc alone in its tower stands only on rim no tower read before explains: a patch
            # of board squeezed between towers is ringed by their rims and the board's drawing.
            # (That share is never more than the coverage, so only a disc found present is asked.)
            own = rim_scores(context.edges, centre, radius, context.neighbours, context.gap, EDGE_STRICTNESS,
                             whole_circle=True)[0][0]
            presence = _edge_presence(float(own), frame, alone=True)
        if presence >= 0.5 and (_shows_no_face(context, accepted, size, centre, radius)
                                or _rim_of_drawn_line(context, accepted, known, size, centre, radius)):
            presence = 0.0
        if ring is _UNREAD and presence >= 0.5:
            ring = _ring_colour(context.labels, len(frame.colours.names), centre, radius)
        candidates[size] = (centre, presence, ring)
    return candidates, {size for size, test in tests.items() if test[3] is not None}, found_farther


def _farther_lines(context: _EdgeContext, weak: list, known, line: DarkLine) -> list[tuple[int, tuple]]:
    """(size, (centre, coverage)) of the dark-line tests `weak` ((size, search, overhang, radius of
    the disc below), (centre, coverage) found, the best point of that search's grid), all resting
    on one disc, whose line shows better farther off: by as much as that disc's own centre is
    uncertain, and within the overhang of a centre where it may truly lie. A blurred rim shows
    fully from several pixels of centres, and the sharpest circle among them can lean 4-5 px to
    one side (soft S1 ill02a's 2green, its 1green 12 px off the centre fitted). Asked only where
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


def _centres_as_good(context: _EdgeContext, centre, radius: float) -> np.ndarray:
    """Where the centre of an accepted disc may truly lie: the whole pixels within half a size
    step of its fitted centre (where the colour chain fits it) at which its rim shows as well."""
    return centres_as_good(context.edges, centre, radius, 0.5 * _size_spacing(context.radii))


def _rests_on(centre, reference, step: float, plateau: np.ndarray, overhang: float) -> bool:
    """Whether a disc at `centre` may rest on the disc below: within the step around its fitted
    centre `reference`, or within `overhang` of a centre `plateau` where it may truly lie."""
    near = float(np.hypot(*(np.asarray(centre) - reference))) <= step
    return near or float(np.hypot(*(plateau - centre).T).min()) <= overhang


def _known_rims(accepted: dict, context: _EdgeContext) -> list[tuple[float, float, float]]:
    """(x, y, radius) of the accepted discs, whose rims edge tests leave out."""
    pieces = context.frame.pieces
    return [(c[0], c[1], context.radii[s] * _growth(_level(s, accepted), pieces)) for s, (c, *_) in accepted.items()]


def _peaks_resting_on(size: int, accepted: dict, context: _EdgeContext) -> list[np.ndarray]:
    """The centre-vote peaks of `size` at which a disc of that size, with nothing found on it yet,
    could rest on the disc it would lie on: beyond the step around that disc (the search there
    covers nearer ones) and over it (a disc whose centre is not over the one below falls off).
    Under discs already found, a peak of a bigger size is as often pieced from their rims and
    shadows (on the tilted re-shoot, a ghost 3 between a 4 and the 2 on it, at a peak 6 mm off)."""
    below = _disc_below(size, accepted)
    if below is None or any(s < size for s in accepted):
        return []
    return [centre for peak_size, centre in context.peaks if peak_size == size
            and context.step < float(np.hypot(*(centre - accepted[below][0]))) < context.radii[below]]


def _shows_no_face(context: _EdgeContext, accepted: dict, size: int, centre, radius: float) -> bool:
    """Whether a bottom disc under accepted discs shows no face of its own: the ring it would
    show around the disc right above it is the board beyond its rim, in shade or partly so. A
    tower's shadow and, through a tilted camera, its side band lie beside it on the board and
    their outer edge can pass for the rim of a bigger disc under it; a real disc's face has its
    own colour there. Not asked when the set has a colour the camera can barely tell from the
    board (white on cream): such a face is the board's colour, a shade of it only darker."""
    if not _bottom_under_found(size, accepted) or context.frame.board_like_colours:
        return False
    top = max(s for s in accepted if s < size)  # the disc right above it
    top_centre = accepted[top][0]
    top_radius = context.radii[top] * _growth(_level(top, accepted), context.frame.pieces)
    window, yy, xx = _circle_window(context.labels.shape, centre, radius + EDGE_MARGIN_PX + OUTSIDE_BAND_PX)
    distance2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    ring = (distance2 <= (radius - EDGE_MARGIN_PX) ** 2) & (
        (xx - top_centre[0]) ** 2 + (yy - top_centre[1]) ** 2 > (top_radius + EDGE_MARGIN_PX) ** 2)
    beyond = (distance2 >= (radius + EDGE_MARGIN_PX) ** 2) & (
        distance2 <= (radius + EDGE_MARGIN_PX + OUTSIDE_BAND_PX) ** 2)
    if np.count_nonzero(ring) < MIN_RING_PIXELS or np.count_nonzero(beyond) < MIN_RING_PIXELS:
        return False
    lab = context.edges.lab_bytes[window]
    return _shaded_board(np.median(lab[ring], axis=0), np.median(lab[beyond], axis=0), context.frame)


def _bottom_under_found(size: int, accepted: dict) -> bool:
    """Whether a disc of `size` would be a tower's bottom disc under discs already found (accepted
    discs are found present)."""
    return any(s < size for s in accepted) and _disc_below(size, accepted) is None


def _rim_of_drawn_line(context: _EdgeContext, accepted: dict, known, size: int, centre, radius: float) -> bool:
    """Whether a bottom disc under accepted discs (whose rims are `known`, see `_known_rims`) was
    found on the edges of a line drawn on the board: along more than half of the directions where
    its rim shows, that edge bounds a band with the board on both sides (`_drawn_bands`) whose
    colour is not the board's in shade (`_inked`). The board's drawing around a tower (an arch)
    has two edges a few millimetres apart, and circles of the sizes under the tower fit them; a
    disc's rim has its own face on one side. Asked in every set: white on a cream board shows the
    board on both sides of its shadow too, but a shadow is the board's colour, only darker."""
    if not _bottom_under_found(size, accepted):
        return False
    hits = np.flatnonzero(rim_hits(context.edges, centre, radius, known, context.gap, EDGE_STRICTNESS))
    if len(hits) == 0:
        return False
    board = context.board_lab
    if board is None:
        return False
    step = context.edges.threshold / SOBEL_GAIN
    reach = int(math.ceil(min(context.radii.values())))
    # Most of its rim: a real disc lying across a line shows the line's edge along a short arc.
    # Every direction's ray is sampled at once; the colour of a band (a colour conversion, and
    # the board's noise) is asked only when enough directions show one.
    needed = len(hits) // 2 + 1
    bands = _drawn_bands(context.smooth_lab, centre, radius, hits, reach, board, step, known)
    if len(bands) < needed:
        return False
    return int(np.count_nonzero(_inked(bands, board, context.board_noise))) >= needed


def _masked_median(lab_bytes: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """The median of each channel over the pixels of a 0/1 mask (as `np.median` gives it), from the
    channels' histograms: gathering the pixels first costs several times more. None for fewer
    than MIN_RING_PIXELS pixels."""
    count = cv2.countNonZero(mask)
    if count < MIN_RING_PIXELS:
        return None
    middle = [(count - 1) // 2, count // 2]  # the middle two of the sorted values (one if odd)
    return np.array([
        np.searchsorted(np.cumsum(cv2.calcHist([lab_bytes], [channel], mask, [256], [0, 256]).ravel()), middle,
                        side="right").mean()
        for channel in range(3)
    ])


def _chromaticity_noise(lab_bytes: np.ndarray, mask: np.ndarray) -> float:
    """The pixel noise in chromaticity over a 0/1 mask, as a robust standard deviation."""
    # Every FACE_NOISE_SAMPLING-th pixel of the mask, in row order, gathered by its flat index (a
    # boolean mask over the crop's three channels costs several times more).
    sample = np.flatnonzero(mask)[::FACE_NOISE_SAMPLING]
    chromaticity = _chromaticity(lab_bytes.reshape(-1, 3).take(sample, axis=0).astype(np.float64))
    spread = np.abs(chromaticity - np.median(chromaticity, axis=0)).sum(axis=1)
    return 1.4826 * float(np.median(spread))


def _drawn_bands(lab, centre, radius: float, directions: np.ndarray, reach: int, board, step: float,
                 known) -> list[np.ndarray]:
    """The Lab samples of the band on the board that the rim of a circle bounds, in each of
    `directions` (of RIM_ANGLES) that has one. Across the rim, from `reach` px inside to `reach`
    outside (the smallest disc's radius: a band as wide as a disc is a surface, such as another
    tower), samples within `step` (the lightness step the edge threshold stands for) of the
    board's Lab are board. The band is the run of other samples within BAND_NEAR_PX of the rim;
    it counts when board lies on both sides of it, not inside a disc already found (a face of the
    board's colour above). Whether it is drawn, not shade, is its colour's to tell (`_inked`)."""
    angles = 2.0 * np.pi * directions / RIM_ANGLES
    along = radius + np.arange(-reach, reach + 1)
    xs = np.rint(centre[0] + along * np.cos(angles)[:, None]).astype(np.intp)
    ys = np.rint(centre[1] + along * np.sin(angles)[:, None]).astype(np.intp)
    inside = _rays_inside(xs, ys, lab.shape)
    xs, ys = xs[inside], ys[inside]
    samples = lab[ys, xs]
    on_board = np.sqrt(((samples - board) ** 2).sum(axis=2)) <= step
    # Where each ray passes between board and other samples, as Python lists (a few per ray,
    # judged one by one).
    rays, changes = np.nonzero(np.diff(on_board.view(np.int8), axis=1))
    flags = on_board.tolist()
    bounds = [[0] for _ in flags]
    for ray, change in zip(rays.tolist(), (changes + 1).tolist()):
        bounds[ray].append(change)
    bands = []
    for ray, ray_bounds in enumerate(bounds):
        ray_bounds.append(len(along))
        band = _band_near_rim(flags[ray], ray_bounds, reach, xs[ray], ys[ray], known)
        if band is not None:
            bands.append(samples[ray, band[0]:band[1]])
    return bands


def _band_near_rim(on_board: list[bool], bounds: list[int], rim: int, xs, ys, known) -> tuple[int, int] | None:
    """(start, end) of the first run of a ray's samples (at pixels xs, ys) off the board within
    BAND_NEAR_PX of sample `rim`, with board on both sides (two samples at least: one may be
    blur) and not inside a circle of `known`, given the bounds of the ray's runs; None when there
    is none."""
    starts, ends = bounds[:-1], bounds[1:]
    for index, (start, end) in enumerate(zip(starts, ends)):
        if on_board[start] or not start - BAND_NEAR_PX <= rim < end + BAND_NEAR_PX:
            continue
        if index == 0 or index == len(starts) - 1 or min(ends[index - 1] - starts[index - 1],
                                                          ends[index + 1] - starts[index + 1]) < 2:
            continue
        sides = [(xs[start - 1], ys[start - 1]), (xs[end], ys[end])]
        if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r for x, y in sides for cx, cy, r in known):
            continue
        return start, end
    return None


def _inked(bands: list[np.ndarray], board, noise: float) -> np.ndarray:
    """Whether each band's median chromaticity is farther from the board's than LABEL_SIGMA times
    the board's pixel noise in chromaticity (`noise`): a shadow or a white disc's side is the
    board's colour in shade, an ink is not."""
    *inks, paper = _chromaticity(np.array([*_band_medians(bands), board], dtype=np.float64))
    return np.array([float(np.abs(ink - paper).sum()) > LABEL_SIGMA * noise for ink in inks])


def _band_medians(bands: list[np.ndarray]) -> np.ndarray:
    """Each band's median Lab (float32 samples, (length, 3) each) as `np.median` gives it: the
    bands padded to one length with infinities and sorted in one call (a call of `np.median`
    costs many times the sorting of a band of a few samples)."""
    lengths = np.array([len(band) for band in bands])
    padded = np.full((len(bands), lengths.max(), 3), np.inf, dtype=np.float32)
    for row, band in zip(padded, bands):
        row[: len(band)] = band
    padded.sort(axis=1)
    rows = np.arange(len(bands))
    # The mean of the middle two in float32, as numpy takes it (the same one twice if odd).
    return (padded[rows, (lengths - 1) // 2] + padded[rows, lengths // 2]) / np.float32(2.0)


def _shaded_board(ring_lab: np.ndarray, board_lab: np.ndarray, frame: _Frame) -> bool:
    """Whether a ring's median Lab is the board's beyond it, in shade or partly so: no lighter
    than it, and of nearly its chromaticity (shade dims all three channels alike) — nearer to it
    than SHADE_CHROMA_SHARE of the way to the set's colour whose chromaticity is nearest the
    board's. The shade that drew part of a ghost's rim need not fill its ring: beside a small
    tower it falls on one side, the lit board fills the rest, and the median is then only a few
    levels darker than the board beyond (8 against an edge step of 11). Glare, which washes a
    face out towards the lamp's white, makes a ring lighter, and a lighter ring is never taken
    for board. A set with a colour of the board's chromaticity (black, white, grey on a neutral
    board) leaves almost no room."""
    if ring_lab[0] > board_lab[0]:
        return False
    ring, board = _chromaticity(np.array([ring_lab, board_lab]))
    nearest_colour = np.abs(frame.chromaticities - board).sum(axis=1).min()
    return float(np.abs(ring - board).sum()) <= SHADE_CHROMA_SHARE * float(nearest_colour)


def _chromaticity(lab: np.ndarray) -> np.ndarray:
    """The shares of R, G and B (8-bit sRGB) of each Lab row, rounded to whole Lab levels: what
    lighting's strength leaves alone (one count added to each channel keeps a black pixel's
    shares defined)."""
    rgb = lab_to_srgb(np.rint(lab)) + 1.0
    return rgb / rgb.sum(axis=1, keepdims=True)


# The ring colour of an edge candidate not read, as nothing will ask for it (see `_edge_candidates`).
_UNREAD = -1


def _steps_in_colour(counts: np.ndarray, lower: int, frame: _Frame) -> bool:
    """Whether the colour labels just inside a disc's rim (`counts`, per colour) that are neither
    the colour below (`lower`) nor one the camera can barely tell from the board hold at least
    STEP_SHARE pixels per pixel of the colour below: the disc differs in colour from the one it
    rests on along that much of its rim (a disc of the lower colour on top, far off-centre,
    covers the rest), so it is not one on its own colour, judged by a dark line alone."""
    others = counts.copy()
    others[[lower, *frame.board_like_colours]] = 0
    return others.sum() >= STEP_SHARE * counts[lower]


def _board_like_ring(context: "_EdgeContext", centre, radius: float) -> bool:
    """Whether the ring just inside a circle is board-like (see `_board_like`)."""
    return _board_like(_ring_counts(context.labels, len(context.frame.colours.names) + 2, centre, radius), context.frame)


def _board_like(counts: np.ndarray, frame: _Frame) -> bool:
    """Whether a ring's label counts (`_ring_counts` of every label, board and other included)
    hold more pixels labelled board, or a colour the camera can barely tell from the board (white
    on cream), than of any other label (other included)."""
    board = len(frame.colours.names)
    like = np.zeros(board + 2, dtype=bool)
    like[[board, *frame.board_like_colours]] = True
    return counts[like].sum() > counts[~like].max(initial=0.0)


def _disc_below(size: int, accepted: dict) -> int | None:
    """The accepted disc present that a disc of `size` would rest on: the smallest bigger one."""
    bigger = _present_under(size, accepted)
    return min(bigger) if bigger else None


def _dark_line(context: _EdgeContext, colour: int, centre, radius: float, lower_down: frozenset) -> DarkLine:
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


def _measure_dark_line(context: _EdgeContext, colour: int, centre, radius: float, lower_down: frozenset) -> DarkLine:
    edges, labels = context.edges, context.labels
    bar = edges.threshold / SOBEL_GAIN
    window, yy, xx = _circle_window(labels.shape, centre, radius)
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


def _growth(level: int, pieces: PieceSet) -> float:
    """Apparent enlargement of a disc resting `level` discs above the table."""
    return 1.0 / (1.0 - level * pieces.thickness_mm / CAMERA_HEIGHT_MM)


def _labels(lab: np.ndarray, frame: _Frame) -> np.ndarray:
    """Per pixel: index of the nearest disc colour, BOARD, or OTHER (disc sides, shadows, lines).

    Labels are taken on a lightly smoothed copy, against the board as it looks right around this
    tower: a white disc differs from a cream board by a few Lab units only, which pixel noise
    hides but a local average shows.
    """
    smooth_image = cv2.blur(lab, (LABEL_SMOOTHING, LABEL_SMOOTHING))
    smooth = smooth_image.reshape(-1, 3)
    board_distances, board_log_norm = board_distance2_by_terms(smooth, _local_board(smooth_image, frame.board))
    distances = [*frame.colours.distances2(smooth), board_distances]
    labels = _most_likely([*frame.colours.log_norms, np.float64(board_log_norm)], distances)
    labels[np.minimum.reduce(distances) > LABEL_SIGMA ** 2] = len(frame.colours.names) + 1
    return labels.reshape(lab.shape[:2])


def _most_likely(log_norms, distances) -> np.ndarray:
    """Per pixel, the index (uint8) of the largest log norm - 0.5 squared distance, the first of
    equals as numpy's argmax gives; `log_norms` float64 numbers and `distances` one array of
    pixels per label. Label by label: numpy's argmax over a short last axis costs several times
    more on a crop."""
    labels = np.zeros(len(distances[0]), dtype=np.uint8)
    best = log_norms[0] - 0.5 * distances[0]
    for index in range(1, len(distances)):
        score = log_norms[index] - 0.5 * distances[index]
        # Only where strictly more likely: ties keep the earlier label.
        np.copyto(labels, np.uint8(index), where=score > best)
        np.maximum(best, score, out=best)
    return labels


def _local_board(smooth_lab: np.ndarray, board: dict):
    """Board colour terms (see `board_terms`) from the crop's border where it looks like the
    calibrated board; the calibrated board's when too little of the border does (other towers
    close by)."""
    # Left in float32 (distances are taken in float32; the moments widen what they keep).
    border = np.concatenate([
        smooth_lab[:LOCAL_BORDER].reshape(-1, 3), smooth_lab[-LOCAL_BORDER:].reshape(-1, 3),
        smooth_lab[:, :LOCAL_BORDER].reshape(-1, 3), smooth_lab[:, -LOCAL_BORDER:].reshape(-1, 3),
    ])
    board_like = border[board_distance2(border, board) <= LABEL_SIGMA ** 2]
    if len(board_like) < LOCAL_BOARD_SHARE * len(border):
        return board_terms(board)
    # Used at once: neither rounded into a readable model nor cached.
    return board_terms_of(*colour_moments(board_like, LOCAL_BOARD_FLOOR))


def _colour_chain(work_labels, labels, edges, frame: _Frame, seed, radii: dict, reach: float,
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
    footprint the fitted centre moved by a pixel or two, which on the tracker's simulated game
    tipped a ring colour (a 4orange under a 3green far off-centre read green).
    """
    pieces = frame.pieces
    board = len(frame.colours.names)
    spacing = _size_spacing(radii)
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
        mask = _fill_holes(opened)
        mask = _component_near(mask, _to_reduced(reference) - corner, zone * WORK_SCALE)
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
        window, yy, xx = _circle_window(distance.shape, reference - full_corner, zone)
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
        expected = {s: radii[s] * _growth(level, pieces) for s in candidates}
        nearest = sorted(candidates, key=lambda s: abs(found - expected[s]))[:CHAIN_SIZE_CHOICES]
        if abs(found - expected[nearest[0]]) > 1.5 * spacing:
            break
        # Pixel colours blur at rims (and white nearly matches a cream board), so the fitted
        # radius only shortlists sizes; when the nearest one's rim does not show, the rim that
        # shows best decides.
        size = nearest[0]
        fits = {size: best_circle(edges, (cx, cy), expected[size], 0.5 * spacing)}
        if _edge_presence(fits[size][1], frame) < 0.5:
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
            around = reference if below is None else _own_vote_peak(peaks, size, reference, zone)
            fits[size] = _refit_around_reference(edges, fits[size], (cx, cy), around, expected[size],
                                                 0.5 * spacing, bottom=below is None)
            if below is None:
                fits[size] = _refit_around_own_peak(edges, fits[size], _own_vote_peak(peaks, size, reference, zone),
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
            # its rim shows more and makes a disc present (lone 1s on glare layouts were read as
            # 2s whose rims showed 0.35-0.60, carried by their footprints' size).
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
        colour = _ring_colour(labels, board, centre, radius, RIM_INSET * spacing, 0.5 * spacing,
                              exclude=lower_colour)
        # On the board a disc's rim can hardly show (a white disc on a cream board), and its
        # footprint's size alone may carry it. A disc on another one of another colour draws a
        # colour step all round: one whose rim does not show is glare or shade on the face below
        # (a glare spot on a 3orange, labelled yellow, fitted a 1yellow), left to the edge tests.
        # Not a disc the colour of the board: where it overhangs the disc below, its rim is faint
        # again (a 2white on the turned bench showed 0.52 in edge presence).
        shown = _edge_presence(fits[size][1], frame)
        if below is None or shown >= 0.5 or colour in frame.board_like_colours:
            presence = max(presence, shown)
        else:
            presence = shown
        chain[size] = (centre, presence, colour)
        if colour is None or size == min(pieces.sizes):
            break
        # What lies on the disc is looked for inside its top face (`_face_centre`), which its side
        # band and shadow do not pull aside as they do the outline. The face is fitted only when
        # something shows inside the outline (the footprint survives the opening): a tower's top
        # disc needs none.
        corner, footprint = _footprint_on(work_labels, board, colour, centre, radius, RIM_INSET * spacing,
                                          opening_radius)
        opened = cv2.morphologyEx(footprint.view(np.uint8), cv2.MORPH_OPEN, opening)
        if not opened.any():
            break
        face = _face_centre(edges, labels, colour, board + 1, centre, radius, 0.5 * spacing)
        # No face fitted (about two in five) leaves the outline's centre, and so the same footprint.
        if not np.array_equal(face, centre):
            corner, footprint = _footprint_on(work_labels, board, colour, face, radius, RIM_INSET * spacing,
                                              opening_radius)
            opened = cv2.morphologyEx(footprint.view(np.uint8), cv2.MORPH_OPEN, opening)
        reference, below, lower_colour = face, size, colour
    return chain, handed_over


def _disc_between(edges: EdgeField, labels, frame: _Frame, fits: dict, size: int, bigger: int, footprint,
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
    between = _ring_colour(labels, colour_count, (x, y), radius, inner, outer, exclude=lower_colour)
    fitted = _ring_colour(labels, colour_count, fits[size][0], expected[size], inner, outer, exclude=lower_colour)
    if between is None or between == fitted:
        return size
    searches = [((x, y), expected[bigger], reach), (reference, expected[bigger], reach)]
    shown = [fit for fit in best_circles(edges, searches)
             if _edge_presence(fit[1], frame) >= 0.5
             and _ring_colour(labels, colour_count, fit[0], expected[bigger], inner, outer) == between]
    if not shown:
        return size
    fits[bigger] = max(shown, key=lambda fit: fit[1])
    return bigger


def _doubt_of_handed_over(handed_over, accepted: dict, frame: _Frame) -> dict:
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
    return {size: (centre, 0.5 * _edge_presence(coverage, frame, alone=True))}


def _fuller_rim(edges: EdgeField, frame: _Frame, fit, starts, radius: float, reach: float):
    """The best fit (centre, coverage) of a circle of `radius` within `reach` of any of `starts`,
    when its rim makes a disc present (`_edge_presence`) and shows more than `fit`'s; else None."""
    best = max(best_circles(edges, [(start, radius, reach) for start in starts]), key=lambda found: found[1])
    return best if _edge_presence(best[1], frame) >= 0.5 and best[1] > fit[1] else None


def _own_vote_peak(peaks, size: int, reference, reach: float) -> np.ndarray:
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
    face below, farther than `reach`, and looking for every such disc there too (twice the searches
    on the bench) moved no stack.
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


def _footprint_on(work_labels, board: int, colour: int, centre, radius: float, inset: float, opening_radius: int):
    """(top left pixel (x, y; reduced) of a box, footprint on that box) of what is neither board
    nor `colour` within `inset` inside the circle of `radius` around `centre` (full-resolution
    pixels) on the reduced labels; the box leaves a margin wider than the opening."""
    box, yy, xx = _circle_window(work_labels.shape, _to_reduced(centre), (radius + 2) * WORK_SCALE + opening_radius + 2)
    corner = np.array([box[1].start, box[0].start], dtype=float)
    yy, xx = _to_full_pixel(yy), _to_full_pixel(xx)
    inside = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2 <= (radius - inset) ** 2
    return corner, inside & (work_labels[box] != board) & (work_labels[box] != colour)


def _face_centre(edges: EdgeField, labels, colour: int, no_colour: int, centre, radius: float, reach: float):
    """The centre of a disc's top face, from the sharpest circle's `centre`.

    The sharpest circle fits the outline, which the disc's side band (on the side away from the
    camera) and its shadow widen on one side, so it leans that way, by up to half a size step
    through a soft or resampled view (the rim coverage saturates over the band's whole width).
    The face's own edge is the first edge met going outward from inside the face: its colour
    against the darker side band, or against the board, a shadow or the disc below. The circle
    fitted to those points is taken when it lies within `reach` of the sharpest one. Once: fits
    from the last fit while they converge (branch vedge2) read the same photos on every bench row
    at two to three times the cost.
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
    cos, sin = _RAY_COS, _RAY_SIN
    steps = np.arange(radius - reach - 2.0, radius + reach + 2.5, 0.5)
    height, width = labels.shape
    xs, ys = np.rint(centre[0] + cos * steps), np.rint(centre[1] + sin * steps)
    inside = _rays_inside(xs, ys, labels.shape)
    flat = (np.clip(ys, 0, height - 1) * width + np.clip(xs, 0, width - 1)).astype(np.intp)
    start = labels.reshape(-1).take(flat[:, 0])
    on_face = start == colour
    if np.count_nonzero(on_face) < COLOURED_SHARE * np.count_nonzero(on_face | (start == no_colour)):
        on_face |= start == no_colour
    # Gradients are read on the rays that start on the face and lie in the crop only (about three
    # in four): no other is used.
    least = RIM_ANGLES // 2
    rays = np.flatnonzero(on_face & inside)
    if len(rays) < least:
        return None
    flat, cos, sin = flat[rays], cos[rays], sin[rays]
    radial = np.abs(edges.gx.reshape(-1).take(flat) * cos + edges.gy.reshape(-1).take(flat) * sin)
    edge = radial >= edges.rim_floor(EDGE_STRICTNESS).take(flat)
    # Each ray's edge is placed at its strongest sample: from its first sample over the bar on,
    # the last before the gradient falls.
    first = np.argmax(edge, axis=1)
    falls = np.ones(radial.shape, dtype=bool)
    np.less(radial[:, 1:], radial[:, :-1], out=falls[:, :-1])
    peak = np.argmax(falls & (np.arange(len(steps))[None, :] >= first[:, None]), axis=1)
    distance = steps[peak]
    points = np.stack([centre[0] + cos[:, 0] * distance, centre[1] + sin[:, 0] * distance], axis=1)[edge.any(axis=1)]
    if len(points) < least:
        return None
    kept = np.ones(len(points), dtype=bool)
    for _ in range(3):
        fit = _circle_through(points[kept])
        residual = np.abs(np.hypot(*(points - fit[:2]).T) - fit[2])
        trimmed = residual <= max(FACE_EDGE_SPREAD_PX, FACE_EDGE_OUTLIER * _median(residual[kept]))
        # The same points kept would give the same fit again.
        if (trimmed == kept).all():
            break
        kept = trimmed
    moved = np.hypot(*(fit[:2] - centre))
    # The face lies within the outline (face, side band and shadow): a circle reaching out of it by
    # more than a rim's scatter is not the face (a black lit grey by a sheen, whose own edge
    # hardly shows, gave one 4 px off, its radius 2 px short, sticking out 2 px).
    if (np.count_nonzero(kept) < least or abs(fit[2] - radius) > reach or moved > reach
            or moved + fit[2] > radius + FACE_EDGE_SPREAD_PX):
        return None
    return fit[:2]


def _rays_inside(xs: np.ndarray, ys: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Whether each ray sampled at pixels (xs, ys), a ray along the last axis, lies within an
    image of `shape`: a ray is straight, so it does when both its ends do."""
    ends_x, ends_y = xs[..., [0, -1]], ys[..., [0, -1]]
    return ((ends_x >= 0) & (ends_y >= 0) & (ends_x < shape[1]) & (ends_y < shape[0])).all(axis=-1)


def _median(values: np.ndarray) -> float:
    """`np.median` of a short 1-d array, by sorting: a fraction of its cost on a few dozen values."""
    ordered = np.sort(values)
    return 0.5 * float(ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2])


def _circle_through(points: np.ndarray) -> np.ndarray:
    """(x, y, radius) of the circle fitting `points` (n, 2) best in the algebraic least-squares
    sense (Kåsa's fit). Taken about the points' mean, the offset term is the mean of the squared
    distances and the centre solves 2 x 2 normal equations, written out: a general solver costs
    more than the sums, and the fit runs a few times per disc of the colour chain."""
    count = len(points)
    # Means as numpy's `mean` takes them (a sum divided by the count), without its overhead.
    mean = np.add.reduce(points, axis=0) / count
    u, v = (points - mean).T
    squares = u * u + v * v
    uu, uv, vv, uz, vz = u @ u, u @ v, v @ v, u @ squares, v @ squares
    determinant = uu * vv - uv * uv
    cx, cy = (uz * vv - vz * uv) / (2 * determinant), (vz * uu - uz * uv) / (2 * determinant)
    return np.array([cx + mean[0], cy + mean[1], math.sqrt(cx * cx + cy * cy + float(np.add.reduce(squares) / count))])


def _size_spacing(radii: dict) -> float:
    """The least difference between the radii of two sizes (px): a size step."""
    ordered = sorted(radii.values())
    return min(b - a for a, b in zip(ordered, ordered[1:]))


def _to_reduced(point) -> np.ndarray:
    """Full-resolution crop coordinates of a point -> reduced-label coordinates (pixel centres
    at whole numbers on both)."""
    return (np.asarray(point, dtype=float) - 0.5) * WORK_SCALE


def _to_full_pixel(index):
    """Reduced-label pixel index -> the full-resolution coordinates of its centre (it covers two
    full-resolution pixels each way)."""
    return index / WORK_SCALE + 0.5


def _ring_colour(labels, colour_count: int, centre, radius: float, inner: float = 1.0, outer: float = 4.0,
                 exclude: int | None = None) -> int | None:
    """Most common colour label (not board, not other, not `exclude`) between `outer` and `inner`
    px inside a circle, or None when there is none."""
    return _most_common(_ring_counts(labels, colour_count, centre, radius, inner, outer), exclude)


def _most_common(counts: np.ndarray, exclude: int | None = None) -> int | None:
    """The colour label with most pixels in `counts` (per colour label), `exclude` left out, or
    None when there is none."""
    if exclude is not None and exclude < len(counts):
        counts = counts.copy()
        counts[exclude] = 0
    return int(counts.argmax()) if counts.any() else None


def _ring_counts(labels, colour_count: int, centre, radius: float, inner: float = 1.0,
                 outer: float = 4.0) -> np.ndarray:
    """How many pixels of each colour label lie between `outer` and `inner` px inside a circle."""
    window, yy, xx = _circle_window(labels.shape, centre, radius - inner)
    distance2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    ring = (distance2 <= (radius - inner) ** 2) & (distance2 >= (radius - outer) ** 2)
    # OpenCV counts under a mask without gathering the pixels; labels past the colours (board,
    # other) fall outside its bins.
    # (The mask as 0 and 1 bytes: a view of the booleans, no copy.)
    return cv2.calcHist([labels[window]], [0], ring.view(np.uint8), [colour_count], [0, colour_count]).ravel()


def _circle_window(shape: tuple[int, ...], centre, radius: float):
    """The image box holding a circle (clipped to the image) as slices, with its pixel
    coordinates as broadcastable column and row: circle masks need no more than that box."""
    # math's floor and ceil: the same whole numbers as numpy's, without its overhead on one value.
    y0, y1 = max(0, math.floor(centre[1] - radius)), min(shape[0], math.ceil(centre[1] + radius) + 1)
    x0, x1 = max(0, math.floor(centre[0] - radius)), min(shape[1], math.ceil(centre[0] + radius) + 1)
    y1, x1 = max(y0, y1), max(x0, x1)
    return (slice(y0, y1), slice(x0, x1)), *_pixel_grid(y0, y1, x0, x1)


def _pixel_grid(y0: int, y1: int, x0: int, x1: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column coordinates of a box, broadcastable (numpy's ogrid, without its overhead,
    which costs more than the masks built from it on boxes this small)."""
    return np.arange(y0, y1)[:, None], np.arange(x0, x1)[None, :]


def _component_near(mask: np.ndarray, point, reach: float):
    """The biggest connected part of `mask` (0 and 1 bytes) coming within `reach` of `point`, or None."""
    # The same labelling as with OpenCV's statistics, which cost several times the labelling;
    # only the areas of the parts near the point are needed.
    count, components = cv2.connectedComponents(mask, connectivity=8)
    if count <= 1:
        return None
    height, width = mask.shape
    x0, x1 = max(0, int(point[0] - reach)), min(width, int(point[0] + reach) + 1)
    y0, y1 = max(0, int(point[1] - reach)), min(height, int(point[1] + reach) + 1)
    yy, xx = _pixel_grid(y0, y1, x0, x1)
    near = (xx - point[0]) ** 2 + (yy - point[1]) ** 2 <= reach * reach
    ids = np.flatnonzero(np.bincount(components[y0:y1, x0:x1][near], minlength=count)[1:]) + 1
    if len(ids) == 0:
        return None
    if count == 2:
        return mask  # the mask's one part (its 0 and 1 bytes, as the comparison below would give)
    # Areas of those parts only (mostly one or two): counting every part costs several times more.
    best = ids[0] if len(ids) == 1 else ids[np.argmax([np.count_nonzero(components == i) for i in ids])]
    # The first of equal areas, as ids ascend; 0 and 1 bytes as a view of the booleans (no copy).
    return (components == best).view(np.uint8)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """The mask with every region it encloses filled (a same-coloured disc higher up)."""
    outside = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    # The background reached from the border is marked 2: what it does not reach is the mask or
    # a hole in it (0 and 1 bytes, a view of the booleans).
    cv2.floodFill(outside, None, (0, 0), 2)
    return (outside[1:-1, 1:-1] != 2).view(np.uint8)


def _colour_slots(lab_bytes, labels, origin, frame: _Frame, circles) -> list[DiscReading]:
    """Colour probabilities of each slot from the ring it shows below the next disc up.

    Rings can be a few pixels wide (a small disc nearly covering a bigger one's rim), so rather
    than a fixed margin, pixels that match no colour (disc sides, shadows) are left out.
    """
    other = len(frame.colours.names) + 1
    slots = []
    for index, (size, (cx, cy), radius, presence) in enumerate(circles):
        window, yy, xx = _circle_window(lab_bytes.shape, (cx, cy), radius - EDGE_MARGIN_PX)
        region = (xx - cx) ** 2 + (yy - cy) ** 2 <= (radius - EDGE_MARGIN_PX) ** 2
        above = next((k for k in range(index + 1, len(circles)) if circles[k][3] >= 0.5), None)
        if above is not None:
            _, (ax, ay), a_radius, _ = circles[above]
            region &= (xx - ax) ** 2 + (yy - ay) ** 2 > (a_radius + EDGE_MARGIN_PX) ** 2
        coloured = region & (labels[window] != other)
        # Unless nearly all of it matches no colour: then the face itself is lit off its
        # calibrated colour (a pale top disc, haze), and the few pixels left are the rim's fringe.
        shown = max(MIN_RING_PIXELS, COLOURED_SHARE * np.count_nonzero(region))
        ring = coloured if np.count_nonzero(coloured) >= shown else region
        probabilities = _colour_probabilities(lab_bytes[window], ring, frame.ring_colours)
        ranked = tuple(sorted(zip(frame.colours.names, probabilities), key=lambda p: -p[1]))
        slots.append(DiscReading(
            size=size,
            centre=(float(cx + origin[0]), float(cy + origin[1])),
            radius=float(radius),
            presence=presence,
            colours=ranked,
            colour=ranked[0][0],
        ))
    return slots


def _colour_probabilities(lab_bytes: np.ndarray, ring: np.ndarray, colours: ColourModel) -> np.ndarray:
    """Posterior over colour names of the pixels of `lab_bytes` (8-bit Lab) where `ring` (a
    boolean mask) is set; flat when the ring is hidden."""
    count = np.count_nonzero(ring)
    if count < MIN_RING_PIXELS:
        return np.full(len(colours.names), 1.0 / len(colours.names))
    typical = _ring_medians(lab_bytes, ring, count)
    log_likelihood = colours.log_likelihoods(typical)[0]
    weights = np.exp(log_likelihood - log_likelihood.max())
    return weights / weights.sum()


def _ring_medians(lab_bytes: np.ndarray, ring: np.ndarray, count: int) -> np.ndarray:
    """Per-channel medians (float32) of the `count` pixels of `lab_bytes` where `ring` is set,
    equal to numpy's median of those pixels as floats (the mean of the middle two for an even
    count), from OpenCV's masked histograms: rings of thousands of pixels are counted many
    times faster than they are gathered and partitioned."""
    mask = ring.view(np.uint8)  # 0 and 1 bytes, a view of the booleans (no copy)
    histograms = np.empty((3, 256, 1), dtype=np.float32)  # counted into in place, one per channel
    for channel in range(3):
        cv2.calcHist([lab_bytes], [channel], mask, [256], [0, 256], hist=histograms[channel])
    cumulative = np.cumsum(histograms[..., 0], axis=1)  # whole numbers, exact in float32 at these counts
    half = count // 2
    upper = (cumulative > half).argmax(axis=1).astype(np.float32)  # the value ranked `half`
    if count % 2:
        return upper
    return ((cumulative > half - 1).argmax(axis=1).astype(np.float32) + upper) / 2


def _settle_colours(towers, pieces: PieceSet):
    """Each colour at most once per size: Hungarian assignment over every disc of that size, in
    which a disc whose most likely colour another disc of its size claims too may instead be
    found absent (cost −log(1 − presence)): one that no colour left free explains is more likely
    not there (arcs of shadows and of the board's drawing around a tower) than of a colour it
    does not look like. A disc found absent keeps the presence it has given the best colour left
    free: p·P(c) / (p·P(c) + 1 − p), below 0.5."""
    chosen: dict[tuple[int, int], str] = {}
    presence: dict[tuple[int, int], float] = {}
    colours = len(pieces.colours)
    for size in pieces.sizes:
        members = [(t, k) for t, tower in enumerate(towers) for k, s in enumerate(tower.slots)
                   if s.size == size and s.presence >= 0.5]
        if not members:
            continue
        slots = [towers[t].slots[k] for t, k in members]
        keep = np.array([
            [-np.log(max(s.presence, PROBABILITY_FLOOR) * s.colour_probability(name)) for name in pieces.colours]
            for s in slots
        ])
        claims = [s.colour for s in slots]
        cheapest = keep.argmin(axis=1).tolist()
        if len(set(claims)) == len(claims) and len(set(cheapest)) == len(cheapest):
            # No colour claimed twice, so none is argued away, and each disc's cheapest colour is
            # its own: together the least total cost, the pairs `assign` gives (the first of equal
            # costs, as it takes them row by row), at a fraction of its cost.
            chosen.update((member, pieces.colours[col]) for member, col in zip(members, cheapest))
            continue
        # Each disc's own "absent" column, the others' out of its reach; only a disc whose most
        # likely colour another disc of its size claims too can be argued away by the inventory.
        absent = np.full((len(slots), len(slots)), IMPOSSIBLE_COST)
        np.fill_diagonal(absent, [
            -np.log(max(1.0 - s.presence, PROBABILITY_FLOOR)) if claims.count(s.colour) > 1 else IMPOSSIBLE_COST
            for s in slots
        ])
        pairs = assign(np.hstack([keep, absent]))
        taken = {col for _, col in pairs if col < colours}
        for row, col in pairs:
            if col < colours:
                chosen[members[row]] = pieces.colours[col]
                continue
            if absent[row, col - colours] >= IMPOSSIBLE_COST:
                continue  # left without a colour and not to be argued away: keeps its own
            slot = slots[row]
            free = max((slot.colour_probability(name) for i, name in enumerate(pieces.colours) if i not in taken),
                       default=PROBABILITY_FLOOR)
            explained = slot.presence * free
            # 1 - p floored as in its cost: a disc no colour left explains stays below 0.5 however
            # sure its rim was (with every colour taken, P(c) is the floor too).
            presence[members[row]] = explained / (explained + max(1.0 - slot.presence, PROBABILITY_FLOOR))
    settled = []
    for t, tower in enumerate(towers):
        slots = tuple(
            DiscReading(s.size, s.centre, s.radius, presence.get((t, k), s.presence), s.colours,
                        chosen.get((t, k), s.colour))
            for k, s in enumerate(tower.slots)
        )
        settled.append(TowerReading(slots))
    return tuple(settled)


def _scene_confidence(lab_small, frame: _Frame, towers) -> tuple[float, str | None]:
    """Low when the calibrated board is not in view or something covers part of it."""
    if frame.board_area is None:
        return 1.0, None
    rows, cols = frame.board_area.shape
    grid = board_like_grid(lab_small, frame.board, (cols, rows))
    circles = [(d.centre[0], d.centre[1], d.radius) for t in towers for d in t.discs[:1]]
    shape = tuple(float(v) for v in to_full(lab_small.shape[:2]))
    grid |= cells_near_circles(shape, (cols, rows), circles)
    expected = frame.board_area.sum()
    if expected == 0:
        return 1.0, None
    visible = float((grid & frame.board_area).sum() / expected)
    if visible >= BOARD_VISIBLE:
        return 1.0, None
    note = "board not in view" if visible < BOARD_GONE else "something covers part of the board"
    # Whatever was read is doubtful: a hand may hide towers, a board out of view shows none.
    return float(max(PROBABILITY_FLOOR, visible * HIDDEN_BOARD_CONFIDENCE)), note
