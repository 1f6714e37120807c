"""Measuring each pit and store of a frame: its seed area, the seeds that show, and how much is unexplained.

Two cues per region: the pixels whose colour says "seed", and spots that each mark one visible
seed — its glint (a lamp makes one small highlight on every seed whose top shows) or, for seeds
without a clear glint, the centre of its round shape. Spots count seeds lying side by side even
when they touch, which their area alone cannot tell apart. Spots are counted twice: for seeds
lying apart, and for a crowded pile, whose seeds' glints come closer together and where seeds
half buried under others show a patch of seed colour but no glint (see SeedSpotter).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, PITS_PER_ROW, REGION_COUNT, BoardGeometry, RegionMask, region_masks
from vision.wari_seeds import SeedColourModel
from vision.wari_params import (
    BURIED_SHARE,
    BURIED_SLIVER,
    CROWDED_WINDOW,
    PIT_SHRINK,
    SEED_COVER,
    SHADED_LIGHTNESS,
    SHADED_SHARE,
    SPOT_REACH,
)

SPOT_CUES = ("glint", "shape")


@dataclass(frozen=True)
class SeedSpotter:
    """Finds one spot per visible seed, by one of two cues.

    "glint": lightness peaks at least `threshold` above their seed-sized surroundings, at most one
    per seed-sized window where seeds lie apart (so that a seed's glint and the lit edge of its
    cap are one spot), one per `CROWDED_WINDOW` of a seed in a crowded pile. In a pile, seeds
    half buried under others show a body but no glint (the glint sits on the seed's top): seed-
    coloured patches that no glint's seed covers count as one more seed each (`_with_buried_seeds`).
    "shape": centres of seed-coloured blobs, where the distance to the blob's edge peaks at least
    `threshold` pixels, one per `CROWDED_WINDOW` of a seed; touching round seeds keep separate
    peaks, long ones may not.
    """

    cue: str
    kernel: int  # working-frame pixels, about one seed across
    threshold: float
    slip: float = 0.03  # chance that a pit's count is one off (a spot missed or doubled)
    # From a seed's glint to the seed's centre, working-frame pixels (x, y): the glint lies off the
    # centre towards the lamp. Learned from the calibration photo.
    glint_offset: tuple[float, float] = (0.0, 0.0)

    @property
    def finds_buried(self) -> bool:
        """Whether the crowded count includes seeds buried under others (glints only show on top)."""
        return self.cue == "glint"

    def spots(
        self,
        frame: np.ndarray,
        seed_like: np.ndarray,
        board_like: np.ndarray | None = None,
        bowls: np.ndarray | None = None,
        solid: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Label images, one label per spot and 0 elsewhere: for seeds lying apart, for a crowded pile.

        `board_like`: pixels whose colour says "board" (known and not seed). A glint lies on its
        seed; a lightness peak of the board's colour amid seeds is the pit floor, lit, seen
        through the gap between them. `bowls`: pixels inside a pit's or store's rim, where a
        half-buried seed must lie (None: anywhere). `solid`: `solid_seeds(seed_like)`, where the
        caller has it already (None: worked out here)."""
        if solid is None:
            solid = solid_seeds(seed_like)
        if self.cue == "glint":
            lightness = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)[..., 0], (5, 5), 1.0)
            patch = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (self.kernel, self.kernel))
            strength = cv2.morphologyEx(lightness, cv2.MORPH_TOPHAT, patch)
            core = max(3, self.kernel // 2)
            on_seed = cv2.blur(solid.astype(np.float32), (core, core)) >= SEED_COVER
            candidates = (strength > self.threshold) & on_seed
            if board_like is not None:
                candidates &= ~board_like
            crowded = self._peaks(strength, candidates, self._crowded_patch())
            return self._peaks(strength, candidates, patch), self._with_buried_seeds(solid, crowded, lightness, bowls)
        strength = cv2.GaussianBlur(cv2.distanceTransform(solid, cv2.DIST_L2, 5), (0, 0), 1.0)
        # A seed's centre is its own; a neighbour's lies a diameter off, or a little less where they
        # crowd. Blobs' centres keep apart by themselves, so one window serves both.
        labels = self._peaks(strength, (strength > self.threshold) & (solid > 0), self._crowded_patch())
        return labels, labels

    @staticmethod
    def glint_centres(glints: np.ndarray) -> np.ndarray:
        """Nx2 centres (x, y) of the labelled glints 1..N, in pixels."""
        xs, ys = _set_pixels((glints > 0).astype(np.uint8))
        return _label_centres(glints[ys, xs], xs, ys, int(glints.max()) if glints.size else 0)

    def _with_buried_seeds(
        self, solid: np.ndarray, glints: np.ndarray, lightness: np.ndarray, bowls: np.ndarray | None
    ) -> np.ndarray:
        """The glints' labels plus one label for each seed-coloured patch that the seeds of the
        glints do not cover (a seed-sized disc at each glint, moved by `glint_offset`), that
        touches one of them, that is big enough to be a half-buried seed rather than the end of a
        long seed beside its disc, but no bigger than a seed, and whose centre lies in a bowl.
        Shaded patches (small and dark: a crevice's shadow or a seed deep in a pile) get negative
        labels."""
        explained = np.zeros_like(solid)
        radius = max(1, round(self.kernel / 2))
        for x, y in self.glint_centres(glints) + np.array(self.glint_offset):
            cv2.circle(explained, (int(round(x)), int(round(y))), radius, 1, -1)
        sliver = int(BURIED_SLIVER * self.kernel) | 1
        left = cv2.morphologyEx(solid & (1 - explained), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (sliver, sliver)))
        # The patches' areas and centres from their few pixels: OpenCV's statistics of every
        # component, background and all, take three times as long as the labelling.
        count, patches = cv2.connectedComponents(left)
        xs, ys = _set_pixels(left)
        labels = patches[ys, xs]
        area = np.bincount(labels, minlength=count)
        # A buried seed lies against the seeds above it; a seed-coloured patch off on its own is
        # the lamp's glare on the wood beyond the rim.
        touching = np.bincount(patches[cv2.dilate(explained, np.ones((5, 5), np.uint8)) > 0], minlength=count) > 0
        seed_area = np.pi * self.kernel**2 / 4
        buried = touching & (area >= BURIED_SHARE * seed_area) & (area <= seed_area)
        buried[0] = False
        if bowls is not None:
            buried[1:][buried[1:]] = _inside(bowls, _label_centres(labels, xs, ys, count - 1)[buried[1:]])
        mean_lightness = np.bincount(labels, lightness[ys, xs], count) / np.maximum(area, 1)
        seed_lightness = float(np.median(lightness[solid > 0])) if solid.any() else 0.0
        shaded = buried & (mean_lightness < SHADED_LIGHTNESS * seed_lightness) & (area < SHADED_SHARE * seed_area)
        clear = buried & ~shaded
        renumbered = np.zeros(count, np.int32)
        renumbered[clear] = int(glints.max()) + 1 + np.arange(int(clear.sum()))
        renumbered[shaded] = -1 - np.arange(int(shaded.sum()))
        return np.where(glints > 0, glints, np.take(renumbered, patches))

    def _crowded_patch(self) -> np.ndarray:
        window = int(CROWDED_WINDOW * self.kernel) | 1
        return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (window, window))

    @staticmethod
    def _peaks(strength: np.ndarray, candidates: np.ndarray, window: np.ndarray) -> np.ndarray:
        """Label image of the candidates that are the strongest within the window around them."""
        local_max = strength == cv2.dilate(strength, window)
        peaks = (local_max & candidates).astype(np.uint8)
        # A flat-topped peak has several equal maxima: merge neighbours into one.
        count, labels = cv2.connectedComponents(cv2.dilate(peaks, np.ones((3, 3), np.uint8)))
        # Equal maxima apart but within one window (a ring around a bead's highlight, which is not
        # seed-coloured) are one peak too: keep the first of them.
        xs, ys = _set_pixels(peaks)
        centres = _label_centres(labels[ys, xs], xs, ys, count - 1)  # row k: label k + 1
        close = np.triu(np.linalg.norm(centres[:, None] - centres[None], axis=2) < window.shape[0] / 2, 1)
        if not close.any():
            return labels
        kept = np.ones(count, bool)  # by label, 0 the background
        for first, second in zip(*np.nonzero(close)):
            if kept[first + 1]:
                kept[second + 1] = False
        renumbered = np.where(kept, np.cumsum(kept) - 1, 0)
        return np.take(renumbered, labels)

    def to_json(self) -> dict:
        return {
            "cue": self.cue,
            "kernel_px": self.kernel,
            "threshold": round(self.threshold, 3),
            "slip": round(self.slip, 4),
            "glint_offset_px": [round(v, 3) for v in self.glint_offset],
        }

    @classmethod
    def from_json(cls, obj: object) -> "SeedSpotter":
        try:
            dx, dy = (float(v) for v in obj["glint_offset_px"])
            spotter = cls(str(obj["cue"]), int(obj["kernel_px"]), float(obj["threshold"]), float(obj["slip"]), (dx, dy))
        except (KeyError, TypeError, ValueError):
            raise ArbiterError("the Wari profile's seed spotter is malformed; calibrate again") from None
        if (
            spotter.cue not in SPOT_CUES
            or spotter.kernel < 3
            or spotter.threshold <= 0
            or not 0 < spotter.slip < 0.5
            or np.hypot(*spotter.glint_offset) > spotter.kernel / 2
        ):
            raise ArbiterError("the Wari profile's seed spotter is malformed; calibrate again")
        return spotter


def solid_seeds(seed_like: np.ndarray) -> np.ndarray:
    """The seed-coloured pixels (8-bit, 0 or 1) without speckles of seed colour (glare on a bare
    floor, wood grain), which are not seeds."""
    return cv2.morphologyEx(seed_like.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _set_pixels(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(xs, ys) of an 8-bit image's nonzero pixels, in raster order, as np.nonzero gives them
    (but several times faster on a sparse image)."""
    found = cv2.findNonZero(image)
    return found.reshape(-1, 2).T if found is not None else (np.zeros(0, np.intp),) * 2


def _label_centres(labels: np.ndarray, xs: np.ndarray, ys: np.ndarray, count: int) -> np.ndarray:
    """Nx2 centres (x, y) of labels 1..count, from the labels of the pixels at (xs, ys)."""
    pixels = np.maximum(np.bincount(labels, minlength=count + 1)[1:], 1)
    return np.stack([np.bincount(labels, xs, count + 1)[1:], np.bincount(labels, ys, count + 1)[1:]], axis=1) / pixels[:, None]


def _inside(mask: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Whether each (x, y) point falls on a set pixel of `mask` (False outside the image)."""
    x, y = np.round(points).astype(int).T
    within = (x >= 0) & (x < mask.shape[1]) & (y >= 0) & (y < mask.shape[0])
    inside = np.zeros(len(points), bool)
    inside[within] = mask[y[within], x[within]]
    return inside


def spotters_from_json(obj: object) -> tuple[SeedSpotter, ...]:
    """A profile's seed spotters; none when calibration found no cue that shows the seeds one by one."""
    if not isinstance(obj, list):
        raise ArbiterError("the Wari profile's seed spotters are missing or malformed; calibrate again")
    return tuple(SeedSpotter.from_json(spotter) for spotter in obj)


@dataclass(frozen=True)
class RegionMeasures:
    """Per region (12 pits, South's store, North's store) of one frame."""

    seed_pixels: np.ndarray  # pixels classified as seed
    spots: np.ndarray  # visible seeds spotted, taken as lying apart (zeros without a spotter)
    crowded_spots: np.ndarray  # the same, taken as crowded in a pile (with buried seeds, by glints)
    unknown_share: np.ndarray  # share of pixels whose colour calibration never saw (a hand, a shadow)
    visible_share: np.ndarray  # share of the region inside the frame


def measure_regions(
    frame: np.ndarray, geometry: BoardGeometry, colours: SeedColourModel, spotters: tuple[SeedSpotter, ...] = ()
) -> RegionMeasures:
    """Classify every pixel of every region of a working-size frame and count the seeds spotted.

    With several spotters a region's count is the largest: each cue misses seeds its own way (a
    glint turned from the lamp or blurred, touching seeds' shapes merging), and calibration only
    keeps a cue that did not invent seeds in the start photo's pits.
    """
    height, width = frame.shape[:2]
    masks = region_masks(geometry, (width, height), PIT_SHRINK)
    spot_masks = _spot_masks(geometry, (width, height))
    x0, y0, x1, y1 = _board_box(geometry, (width, height))
    board = frame[y0:y1, x0:x1]
    seed_probability, known = colours.read(board)
    seed_like = seed_probability > 0.5
    board_like = known & (seed_probability < 0.5)
    bowls = _bowls(geometry, (width, height))
    # Every spotter starts from the same seed-coloured pixels (a board may keep two cues).
    solid = solid_seeds(seed_like) if spotters and board.size else None
    labels = [spotter.spots(board, seed_like, board_like, bowls, solid) for spotter in spotters] if board.size else []
    seed_pixels = np.zeros(REGION_COUNT)
    counts = np.zeros((2, REGION_COUNT))  # apart, crowded
    unknown_share, visible_share = np.ones(REGION_COUNT), np.zeros(REGION_COUNT)
    for region, mask in enumerate(masks):
        local = mask.shifted(-x0, -y0)
        expected = _expected_area(geometry, region, width)
        visible_share[region] = min(mask.area / expected, 1.0) if expected else 0.0
        if mask.area == 0:
            continue
        unknown_share[region] = 1.0 - np.count_nonzero(local.pixels(known)) / mask.area
        reach = spot_masks[region].shifted(-x0, -y0)
        crevices = 0
        for apart, crowded in labels:
            apart_count, spotted = _labels_in(reach, apart), _distinct(reach.pixels(crowded))
            counts[:, region] = np.maximum(counts[:, region], [apart_count, count_crowded(spotted, apart_count)])
            crevices = max(crevices, crevice_pixels(local, crowded, spotted, apart_count))
        seed_pixels[region] = np.count_nonzero(local.pixels(seed_like)) - crevices
    return RegionMeasures(seed_pixels, *counts, unknown_share, visible_share)


def count_crowded(spotted: np.ndarray, apart_count: int) -> int:
    """Seeds a crowded count finds among `spotted` (a region's distinct crowded labels): glints and
    clear half-buried patches, and shaded patches too once those already find more seeds than the
    count as lying apart (the seeds pile, so a dark patch may be a seed in the pile's shadow;
    otherwise it is the crevice between seeds lying side by side)."""
    clear = np.count_nonzero(spotted > 0)
    return clear + np.count_nonzero(spotted < 0) if _shaded_are_seeds(spotted, apart_count) else clear


def crevice_pixels(measured: RegionMask, crowded: np.ndarray, spotted: np.ndarray, apart_count: int) -> int:
    """Seed-coloured pixels that are no seed's area: where a region is `measured`, the pixels of
    the shaded patches among the `crowded` labels once its spots (`spotted`: the labels within
    reach) judge them crevices between seeds lying side by side (see `count_crowded`). Left in the
    area they read one seed more than the spots found, for the same seeds."""
    if not (spotted < 0).any() or _shaded_are_seeds(spotted, apart_count):
        return 0
    return int(np.count_nonzero(measured.pixels(crowded) < 0))


def _shaded_are_seeds(spotted: np.ndarray, apart_count: int) -> bool:
    """Whether a region's shaded patches are seeds in a pile's shadow rather than crevices between
    seeds lying side by side: the glints and clear patches among its distinct crowded labels
    `spotted` already find more seeds than the count as lying apart."""
    return np.count_nonzero(spotted > 0) > apart_count


def _labels_in(mask: RegionMask, labels: np.ndarray) -> int:
    return np.count_nonzero(_distinct(mask.pixels(labels)))


def _distinct(labels: np.ndarray) -> np.ndarray:
    """The distinct labels, in order: as np.unique gives them, in half its time for a region's few
    labels (a frame calls this 28 times a spotter)."""
    if not labels.size:
        return labels
    low = labels.min()
    return np.flatnonzero(np.bincount(labels - low)) + low


def _spot_masks(geometry: BoardGeometry, frame_size: tuple[int, int]) -> tuple[RegionMask, ...]:
    """Where each region's seeds are spotted: pits a little beyond their rim, stores as measured
    (the pits' measured regions lie inside these)."""
    return region_masks(geometry, frame_size, SPOT_REACH)[:PIT_COUNT] + region_masks(geometry, frame_size, PIT_SHRINK)[PIT_COUNT:]


@lru_cache(maxsize=32)
def _board_box(geometry: BoardGeometry, frame_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The frame's box around all regions: the only part worth filtering."""
    masks = _spot_masks(geometry, frame_size)
    x0 = min(m.x0 for m in masks)
    y0 = min(m.y0 for m in masks)
    x1 = max(m.x0 + m.mask.shape[1] for m in masks)
    y1 = max(m.y0 + m.mask.shape[0] for m in masks)
    return x0, y0, max(x1, x0), max(y1, y0)


@lru_cache(maxsize=32)
def _bowls(geometry: BoardGeometry, frame_size: tuple[int, int]) -> np.ndarray:
    """Pixels of the board box inside any pit's or store's rim. A half-buried seed lies under
    others, low in its bowl; a seed-coloured patch on the board top between two bowls (the wood,
    lit or grainy under a noisy camera, within both pits' spotting reach) is none."""
    x0, y0, x1, y1 = _board_box(geometry, frame_size)
    width, height = frame_size
    inside = np.zeros((height, width), bool)
    for mask in region_masks(geometry, frame_size):
        inside[mask.y0 : mask.y0 + mask.mask.shape[0], mask.x0 : mask.x0 + mask.mask.shape[1]] |= mask.mask
    return inside[y0:y1, x0:x1]


@lru_cache(maxsize=512)
def _expected_area(geometry: BoardGeometry, region: int, frame_width: int) -> float:
    """The region's area if it lay wholly inside the frame (its polygon's area)."""
    outline = geometry.outline_in_image(region, frame_width / geometry.image_size[0], PIT_SHRINK)
    x, y = outline[:, 0], outline[:, 1]
    return float(abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))) / 2)


def board_top_points(geometry: BoardGeometry) -> np.ndarray:
    """Board-frame points on the flat top between the pits, where seeds never lie (only hands)."""
    between_columns = [(c + 0.5, row * geometry.row_spacing) for row in (0, 1) for c in range(PITS_PER_ROW - 1)]
    between_rows = [(float(c), geometry.row_spacing / 2) for c in range(PITS_PER_ROW)]
    return np.array(between_columns + between_rows)


def board_top_colours(frame: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """Mean Lab colour of a 5x5 patch at each board-top point (NaN where it leaves the frame)."""
    height, width = frame.shape[:2]
    points = np.round(geometry.to_image(board_top_points(geometry), width / geometry.image_size[0])).astype(int)
    inside = (points[:, 0] >= 2) & (points[:, 0] < width - 2) & (points[:, 1] >= 2) & (points[:, 1] < height - 2)
    colours = np.full((len(points), 3), np.nan, np.float32)
    if inside.any():
        patches = np.concatenate([frame[y - 2 : y + 3, x - 2 : x + 3] for x, y in points[inside]])
        lab = cv2.cvtColor(patches, cv2.COLOR_BGR2LAB).astype(np.float32)
        colours[inside] = lab.reshape(-1, 25, 3).mean(axis=1)
    return colours
