"""Calibrating a Wari table from one photo of the standard start (4 seeds in every pit).

The 48 seeds are what stands out in that photo: they are found as small patches that differ from
their surroundings, grouped into 12 clusters that must form two rows of six, and a homography from
the board's own frame is fitted to the cluster centres. Each pit's circle is then moved onto its
rim, where the edges stand out all round it, and the homography fitted again; the stores are
found where the image has the strongest edges along ellipses of that layout. Knowing
that each pit holds exactly 4 seeds, the photo also teaches the seeds' colours (from the
contrasted pixels whose colour the wood does not take in light or shade) and the area one seed
covers in each pit, and how much that area varies between pits.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import cv2
import numpy as np

from engines.errors import ArbiterError
from engines.wari import pit_name
from vision.wari import WariObservation, WariProfile, recognize
from vision.wari_board import PIT_COUNT, PITS_PER_ROW, BoardGeometry, local_scale, pit_column_and_row, region_masks
from vision.wari_count import CountModel
from vision.wari_measure import PIT_SHRINK, SPOT_CUES, SeedSpotter, board_top_colours, measure_regions
from vision.wari_pile_counter import count_probabilities, pit_crops
from vision.wari_seeds import SeedColourModel, local_contrast, vivid, working_frame

START_SEEDS_PER_PIT = 4
# Seeds are the pixels contrasted above this share of the photo's 99.5th-percentile contrast.
# The most vivid seeds set that percentile, so where the pits do not form the grid at the first
# share, or do not show 4 seeds each there (seeds coloured almost like the wood: red beads on red
# wood stand out half as much as blue ones), the lower shares are tried in turn. Lower still, a
# bowl's shaded wall stands out too.
_STANDOUT_SHARES = (0.5, 0.4, 0.35)
# The seed mask is opened by a disc this many working-frame pixels across (seeds are 11-18: the
# bench's and 20 training renders' start photos).
_SEED_OPENING = 5
# A lamp's glints on a varnished board's bevelled rims (a cone cut round each bowl) stand out
# like seeds: bright arcs that join the seeds of neighbouring pits into blobs spanning several,
# so that no grid forms at any share. A photo refused so is read again with its masks opened
# wider, in turn, which drops the arcs and keeps the seeds. Session 56: of 128 start photos of
# training renders (about half of them bevelled, half varnished), 4 formed no grid, all of them
# bevelled and varnished; read again, 3 are accepted (7 px: 2, 9 px: 1), their circles over the
# bevels' outlines by 0.82-0.94 (intersection over union; 0.85 on a bevelled board accepted at
# once). Photos that form a grid are read as before, and refused as fast.
_ARC_OPENINGS = (7, 9)
# Pits of its own start photo the first profile made (at the highest share that makes one) may
# misread and still be kept: one pit off is a glint lost, as in any photo; on our renders,
# profiles that misread more had missed seeds of some colour, and those from a lower share read
# their sessions better.
_START_MISREADS = 1
# A pit of the start photo the profile reads as other than 4 is a lost glint if the pile counter,
# a second witness that looks at the pit's crop alone, still gives 4 seeds at least this chance;
# if it too finds another count, the pit holds it and the photo is not the start. Over the bench's
# and 40 rendered near-start sessions' start photos through every camera (168) and their near
# starts (200: a start with one pit of 1, 2, 3, 5 or 6 seeds), the session-36 counter gives the
# odd pit of a near start at most 0.041 (a pit of 3; the next 0.0068) and the start pits the
# profile misread 0.014-1.0, under 0.05 only nicker 701's half-hidden nut (0.027 plain, 0.014
# soft). No threshold both accepts that nut and refuses the pit of 3; 0.05 refuses both, asking
# for every seed in view (docs/vision-wari.md, sessions 27-28 and 36).
_SECOND_WITNESS = 0.05
# The quarter turns the witness reads a pit at: the two its threshold was measured with (sessions 31-33, 36).
_WITNESS_TURNS = (0, 1)
# Glint windows tried, as shares of the seed diameter the start photo's area gives, in order of
# preference.
_GLINT_WINDOWS = (1.0, 0.95, 0.9)
# Spotted seeds count only if, at some threshold, this many of the 12 pits show exactly 4.
_SPOT_AGREEMENT = 10
# Another count most pits show means the photo is not the start only at thresholds where the cue
# still shows this share of the most spots it shows at any: higher, heaped beads' glints vanish
# but the brightest one in each pit (glass 1221 through the turned camera: 9 pits show 1 where
# the cue shows 18 spots of its 41).
_KEPT_SPOTS = 0.75
# The 12 pit clusters of a start photo weigh at least this share of their median. Down to the
# second share, at no standout share alike, they are still tried as the pits, and the checks on
# what each pit shows decide: one pit's seeds may hardly show (a pit short of seeds, seeds of the
# wood's colour, a pit cut by the photo's edge: refused, as such), or a dim photo's lit rims may
# stand out with the near pits' seeds while the far pits' seeds hardly do (nicker 1205 through
# the tilted camera, session 47: accepted).
_ALIKE_PITS = 0.35
_FAINT_PIT = 0.15
# A grid through a blob that is no pit (the board's corner against the table at the photo's edge,
# a lamp's glare) can fit the 12 heaviest clusters while the true pits, one of them lighter than
# that blob, fit far better with it spared. Over 240 start photos (the bench's and 58 renders',
# through every camera) such grids fit 0.14-0.24 pitches where sparing fit 0.03-0.08, 0.12-0.40
# times the misfit; where sparing fit better for another reason, it fit 0.66-0.99 times as well
# (session 46).
_SPARE_FIT = 0.5
# At most this many passes of giving blobs to their nearest grid places: a blob may swing between two pits.
_REGROUP_PASSES = 10
# How far (in pitches) a pit's circle may move from its seeds' centre onto its rim (the seed
# clusters' centres lie up to 0.36 pit radii, 0.15 pitches, off the true rims' centres on 60
# renders), the steps it moves by, coarse then fine, and the directions each circle is sampled in;
# the passes, the share of edge strength a rim keeps all round and the share of seeds a circle
# holds are told in `_pits_on_their_rims`.
_RIM_REACH = 0.14
_RIM_STEPS = (0.02, 0.005)
_RIM_PASSES = 2
_RIM_QUANTILE = 25
_SEEDS_HELD = 0.97
_PIT_RADII = np.arange(0.3, 0.5, 0.005)  # pitches
_RIM_ANGLES = np.linspace(0, 2 * np.pi, 72, endpoint=False)
_RIM_DIRECTIONS = np.column_stack([np.cos(_RIM_ANGLES), np.sin(_RIM_ANGLES)])
# Wood colours: a pit's band inside its rim (as a share of its radius), lightness bands of this
# many Lab units holding at least this many wood pixels, and how far beyond the usual spread of
# a band's colours a seed's colour must lie.
_RIM_BAND = 0.8
_LIGHTNESS_BAND = 8
_BAND_PIXELS = 30
_WOOD_SPREAD = 1.5
# Seeds' worth of area each pit of a start photo may show. The start photos of the bench, its
# re-shoots and our renders show 2.5-5.7 (a pit of 5 seeds up to 5.4); a pit of one seed shows
# 0.9-1.3, and 12 clusters taken for pits where they are not show 0 in some and 8-17 in others.
# Under the first figure no seed lies where the pit is said to be: the 12 clusters were not pits.
_START_PIT_SEEDS = (0.5, 1.5, 7.0)
# The spread of the pits' readings, in seeds, beyond which they are not all 4: start photos show
# 0.12-0.79 (area only: 0.28-0.79), a random position that passes the other checks 0.76-1.58.
_START_SPREAD = 1.0
# A pit whose rim reaches past the photo's edge hides the seeds resting against its wall there, and
# the profile would misread it whenever one does. Calibrated rims lie within 0.14 radii of the
# renders' true ones (session 36), so a rim may reach past the edge by this share of its radius.
_RIM_PAST_EDGE = 0.15
_NOT_A_START = "does not show a Wari board at the start position (two rows of six pits with 4 seeds each)"
_NEEDS_THE_START = "calibration needs the start position with 4 seeds in each pit"
_FAINT_PIT_MESSAGE = (
    f"one pit in the photo shows far fewer seeds than the others, or is cut by the photo's edge: {_NEEDS_THE_START}, "
    "the whole board in view and seeds whose colour stands out from the board's"
)


class _PitOutOfView(ArbiterError):
    """A refusal naming the pit the photo's edge cuts: the one thing to mend, whatever else failed."""


def calibrate(image: np.ndarray) -> dict:
    """Find the board in a photo of the standard start and learn its seeds: a profile dict."""
    if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.shape[1] < 64:
        raise ArbiterError("calibration needs a colour photo of the board")
    frame = working_frame(image)
    # Merging nearest seed blobs first can give a seed on one side of a bowl to the next pit's
    # cluster, and that pit's circle then misses its rim (nicker 1510 through the tilted camera,
    # session 55: South's a centred 0.3 pitches off its bowl, the start refused). Only a refused
    # photo is read again with each blob given to the pit its place on the grid lies nearest.
    # Regrouped always, 54 of 630 accepted start photos got other pit circles, no nearer the true
    # rims, and the bench's S0 through the soft camera read 2 of its 72 piles of 8-12 fewer: the
    # pile counter learned its crops from the circles as they are. Where regrouping moves no pit,
    # the refusal stands at once: a photo that is not the start is refused about as fast as before.
    # A photo whose pits formed no grid at all is read again with wider openings (`_ARC_OPENINGS`).
    contrast = local_contrast(frame, frame.shape[1] // 16)
    try:
        return _calibrated(image, frame, _pit_clusters_by_share(contrast))
    except ArbiterError as refusal:
        for clusters in _second_readings(contrast):
            try:
                return _calibrated(image, frame, clusters)
            except ArbiterError:
                continue
        raise refusal from None


def _calibrated(image: np.ndarray, frame: np.ndarray, clusters: Iterable[tuple[np.ndarray, np.ndarray, bool]]) -> dict:
    # A share at which the pits form the grid may still leave out the seeds coloured most like the
    # wood (a red bead of four on red wood): the pits then seem to hold 3, or the profile misreads
    # its own start photo. The lower shares get their turn then, and a profile after the first one
    # made is kept only if it reads the start exactly: where the first refused a pit of 2 or 3
    # seeds, a lower share adds the bowl's shade to its area. Failing that, the first profile
    # made is kept, or the first refusal explains the photo. Either way, the first profile is
    # kept only if the pits it misreads are misread, not pits holding another number of seeds.
    # A first profile that counts by area alone, its spot cues agreeing in too few pits, may have
    # left seeds out (glass 1200 through the soft camera: its dark blue beads at the first share):
    # a lower share's profile is kept instead if it spots the seeds and reads the start exactly.
    first_refusal = first_profile = first_reading = None
    for seed_mask, centres, pits_alike in clusters:
        try:
            profile = _profile(image, frame, seed_mask, centres)
        except ArbiterError as refusal:
            # Where one pit's cluster is faint, that pit is what to mend, whatever the check that
            # failed; a refusal naming the pit the photo's edge cuts says so already.
            if not pits_alike and not isinstance(refusal, _PitOutOfView):
                refusal = ArbiterError(_FAINT_PIT_MESSAGE)
            first_refusal = first_refusal or refusal
            continue
        reading = recognize(image, profile)
        misread = sum(count != START_SEEDS_PER_PIT for count in reading.pits)
        if first_profile is None:
            if misread <= _START_MISREADS and profile["spotters"]:
                _check_misread_pits_hold_4(image, profile, reading)
                return profile
            first_profile, first_reading, first_misread = profile, reading, misread
        elif misread == 0 and (profile["spotters"] or first_misread > _START_MISREADS):
            return profile
    if first_profile is None:
        raise first_refusal
    _check_misread_pits_hold_4(image, first_profile, first_reading)
    return first_profile


def _profile(image: np.ndarray, frame: np.ndarray, seed_mask: np.ndarray, centres: np.ndarray) -> dict:
    """The profile from the start photo's seed mask and pit clusters, or a refusal if its pits do
    not show 4 seeds each."""
    scale = frame.shape[1] / image.shape[1]
    geometry = _fit_geometry(centres / scale, (image.shape[1], image.shape[0]), frame, seed_mask)
    _check_pits_in_view(geometry)
    colours = _learn_colours(frame, geometry, seed_mask)
    measures = measure_regions(frame, geometry, colours)
    counts = CountModel.learn(geometry, measures.seed_pixels, frame.shape[1], START_SEEDS_PER_PIT)
    _check_pits_show_their_seeds(measures.seed_pixels[:PIT_COUNT] / np.array(counts.seed_area[:PIT_COUNT]), counts.spread)
    spotters, spot_agreement = _learn_spotters(frame, geometry, colours, counts)
    return {
        "game": "wari",
        "board": geometry.to_json(),
        "seed_colours": colours.to_json(),
        "counts": counts.to_json(),
        "spotters": [spotter.to_json() for spotter in spotters],
        "start_pits_spotted": spot_agreement,
        "board_top_lab": [
            [round(float(v), 1) for v in colour] if np.isfinite(colour).all() else None
            for colour in board_top_colours(frame, geometry)
        ],
        "summary": {
            "pit_pitch_px": round(local_scale(geometry, 2), 1),
            "pit_radius_px": round(local_scale(geometry, 2) * geometry.pit_radius, 1),
            "seed_area_px": round(float(np.median(counts.seed_area)) / scale**2, 1),
            "start_count_spread": round(counts.spread, 3),
            "seed_spotting": " and ".join(spotter.cue for spotter in spotters) or "area only",
            "pits_with_4_spots": spot_agreement,
        },
    }


def _pit_clusters_by_share(contrast: np.ndarray, regroup: bool = False, opening: int = _SEED_OPENING):
    """The seed mask, the centres (working-frame pixels) of the 12 pits' seed clusters and whether
    the clusters weigh alike, at each of `_STANDOUT_SHARES` at which alike clusters form the grid,
    in turn; failing that, where clusters one of which is faint form it; a refusal if none does.
    With `regroup`, each cluster's blobs are given to the pits their grid places lie nearest; the
    masks are opened by `opening` (see `_seed_mask`)."""
    grid_found = False
    faint_grids = []
    for share in _STANDOUT_SHARES:
        seed_mask = _seed_mask(contrast, share, opening)
        groupings, areas, points = _groupings(seed_mask)
        centres = _best_grid(groupings, areas, points, _ALIKE_PITS, regroup)
        if centres is not None:
            grid_found = True
            yield seed_mask, centres, True
            continue
        # Tried only where no share gives alike clusters (`_FAINT_PIT`); refused, such a photo is
        # told apart from one of no board at all.
        centres = _best_grid(groupings, areas, points, _FAINT_PIT, regroup)
        if centres is not None:
            faint_grids.append((seed_mask, centres, False))
    if grid_found:
        return
    if not faint_grids:
        raise ArbiterError(f"the photo {_NOT_A_START}")
    yield from faint_grids


def _second_readings(contrast: np.ndarray):
    """The pit clusters to read a refused photo by once more, in turn (each as
    `_pit_clusters_by_share` gives them): where the pits formed the grid, every cluster's blobs
    regrouped, if that moves a pit at some standout share (both give the centres in contract
    order); where they formed none, the masks opened by each of `_ARC_OPENINGS`."""
    try:
        as_merged = list(_pit_clusters_by_share(contrast))
    except ArbiterError:
        for opening in _ARC_OPENINGS:
            yield _pit_clusters_by_share(contrast, opening=opening)
        return
    regrouped = list(_pit_clusters_by_share(contrast, regroup=True))
    if len(as_merged) != len(regrouped) or not all(
        np.allclose(first[1], second[1]) for first, second in zip(as_merged, regrouped)
    ):
        yield regrouped


def _check_pits_in_view(geometry: BoardGeometry) -> None:
    """Refuse a start photo one of whose pits the photo's edge cuts (`_RIM_PAST_EDGE`), naming the
    pit cut most."""
    width, height = geometry.image_size
    reaches = []  # (how far past an edge, in pit radii; the pit; the edge)
    for pit in range(PIT_COUNT):
        rim = geometry.outline_in_image(pit)
        radius = geometry.pit_radius * local_scale(geometry, pit)
        past = {
            "left": -rim[:, 0].min(),
            "right": rim[:, 0].max() - width,
            "top": -rim[:, 1].min(),
            "bottom": rim[:, 1].max() - height,
        }
        edge = max(past, key=past.get)
        reaches.append((past[edge] / radius, pit, edge))
    reach, pit, edge = max(reaches)
    if reach > _RIM_PAST_EDGE:
        raise _PitOutOfView(f"{pit_name(pit)} is cut by the photo's {edge} edge: {_NEEDS_THE_START}, the whole board in view")


def _check_pits_show_their_seeds(seeds_shown: np.ndarray, spread: float) -> None:
    """Refuse a start photo whose pits, as found, do not each show about 4 seeds' worth of area
    (`seeds_shown`), or whose readings differ too much (`spread`, in seeds) to be 4 each."""
    empty, fewest, most = _START_PIT_SEEDS
    if seeds_shown.max() > most or seeds_shown.min() < empty:
        raise ArbiterError(f"the photo {_NOT_A_START}")
    faintest = int(np.argmin(seeds_shown))
    if seeds_shown[faintest] < fewest:
        raise ArbiterError(
            f"{pit_name(faintest)} shows far fewer seeds than the others ({seeds_shown[faintest]:.1f} seeds' worth "
            f"of area): {_NEEDS_THE_START}, and seeds whose colour stands out from the board's"
        )
    if spread > _START_SPREAD:
        raise ArbiterError(f"the photo's pits show seeds {spread:.1f} seeds apart on average: {_NEEDS_THE_START}")


def _check_misread_pits_hold_4(image: np.ndarray, profile: dict, reading: WariObservation) -> None:
    """Refuse a start photo one of whose pits holds another number of seeds than 4: the profile
    reads it so (`reading`, of this photo), and the pile counter, looking at the pit alone, agrees
    that 4 is unlikely. Where the counter sees 4, the profile's misreading is a glint lost, as in
    any photo."""
    misread = [pit for pit, count in enumerate(reading.pits) if count != START_SEEDS_PER_PIT]
    if not misread:
        return
    crops = pit_crops(image, reading.geometry, WariProfile.from_json(profile).seed_diameter, misread)
    chances = count_probabilities(crops, _WITNESS_TURNS)[:, START_SEEDS_PER_PIT]
    for pit, chance in zip(misread, chances):
        if chance < _SECOND_WITNESS:
            raise ArbiterError(
                f"{pit_name(pit)} seems to hold {_seeds(reading.pits[pit])}, not 4: {_NEEDS_THE_START}, every seed in view"
            )


def _seeds(count: int) -> str:
    return f"{count} seed" if count == 1 else f"{count} seeds"


def _seed_mask(contrast: np.ndarray, share: float, opening: int = _SEED_OPENING) -> np.ndarray:
    """Pixels that stand out clearly: seeds are the most contrasted ~2% of a start photo. Opened by
    a disc `opening` pixels across, which keeps seed-sized blobs and drops thinner rim highlights."""
    threshold = max(8.0, share * float(np.percentile(contrast, 99.5)))
    mask = (contrast > threshold).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening)))


def _groupings(seed_mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The mask's blobs (areas, centres) and their single-linkage groupings on the way down to 12
    clusters, nearest blobs merged first: each grouping labels every blob with its cluster."""
    count, _, stats, centroids = cv2.connectedComponentsWithStats(seed_mask)
    areas = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    points = centroids[1:]
    keep = areas >= 4
    areas, points = areas[keep], points[keep]
    if len(points) < PIT_COUNT or len(points) > 2000:
        return [], areas, points
    distances = np.linalg.norm(points[:, None] - points[None], axis=2)
    first, second = np.triu_indices(len(points), 1)
    order = np.argsort(distances[first, second], kind="stable")
    parent = np.arange(len(points))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Every blob its own cluster is a grouping too: each pit's seeds may touch in one blob, beside
    # a few specks of the board's edge that merging would join to the pits before each other.
    groupings = [np.arange(len(points))] if len(points) <= 3 * PIT_COUNT else []
    clusters = len(points)
    for edge in order:
        a, b = root(first[edge]), root(second[edge])
        if a == b:
            continue
        parent[a] = b
        clusters -= 1
        if clusters <= 3 * PIT_COUNT:
            groupings.append(np.array([root(i) for i in range(len(points))]))
        if clusters == PIT_COUNT:
            break
    return groupings, areas, points


def _best_grid(
    groupings: list[np.ndarray], areas: np.ndarray, points: np.ndarray, alike: float, regroup: bool = False
) -> np.ndarray | None:
    """Of the groupings whose 12 heavy clusters form the grid, the centres of the best fitting, or
    None: with no spare cluster, unless one spare gives a grid fitting `_SPARE_FIT` times as well
    or none forms it without."""
    best = []
    for spare in (0, 1):
        found = [_heavy_cluster_centres(labels, areas, points, spare, alike, regroup) for labels in groupings]
        best.append(min((f for f in found if f is not None), key=lambda f: f[1], default=None))
    without, with_spare = best
    if without is not None and (with_spare is None or with_spare[1] >= _SPARE_FIT * without[1]):
        return without[0]
    return None if with_spare is None else with_spare[0]


def _heavy_cluster_centres(
    labels: np.ndarray, areas: np.ndarray, points: np.ndarray, spare: int, alike: float, regroup: bool = False
):
    """The centres of 12 heavy, alike clusters forming a 2x6 grid and their grid misfit, or None.

    The 12 are the heaviest, or with one `spare` the heaviest 13 but one: a store's shaded wall
    or a lamp's glare on the board may outweigh a pit whose seeds alone stand out. Alike: none
    weighs less than `alike` times their median.
    """
    ids, inverse = np.unique(labels, return_inverse=True)
    cluster_area = np.bincount(inverse, weights=areas)
    heaviest = np.argsort(cluster_area)[::-1][: PIT_COUNT + spare]
    if len(heaviest) < PIT_COUNT:
        return None
    choices = [heaviest] if len(heaviest) == PIT_COUNT else [np.delete(heaviest, k) for k in range(len(heaviest))]
    best = None
    for heavy in choices:
        typical = np.median(cluster_area[heavy])
        # None of the twelve much lighter than the rest (a pit split in two); heavier ones happen
        # when a lit rim joins a pit's seeds, and merged pits fail the grid below.
        if cluster_area[heavy].min() < alike * typical:
            continue
        centres = np.array([
            np.average(points[inverse == k], axis=0, weights=areas[inverse == k]) for k in heavy
        ])
        grid = _grid_order(centres)
        if grid is not None and regroup:
            in_heavy = np.isin(inverse, heavy)
            grid = _blobs_to_their_grid_places(points[in_heavy], areas[in_heavy], *grid)
        if grid is not None and (best is None or grid[1] < best[1]):
            best = grid
    return best


def _blobs_to_their_grid_places(
    points: np.ndarray, areas: np.ndarray, ordered: np.ndarray, misfit: float
) -> tuple[np.ndarray, float]:
    """The pits' centres (contract order) and grid misfit with each blob given to the pit whose
    place on the fitted grid lies nearest it, until no blob changes pit: a seed nearer the next
    pit's seeds than its own may still lie nearer its own pit's place, which the grid through the
    other pits says."""
    owner = None
    for _ in range(_REGROUP_PASSES):
        places = _fitted_grid(ordered)
        nearest = np.argmin(np.linalg.norm(points[:, None] - places[None], axis=2), axis=1)
        if (owner is not None and (nearest == owner).all()) or len(np.unique(nearest)) < PIT_COUNT:
            break
        grid = _grid_order(np.array([
            np.average(points[nearest == pit], axis=0, weights=areas[nearest == pit]) for pit in range(PIT_COUNT)
        ]))
        if grid is None:
            break
        owner, (ordered, misfit) = nearest, grid
    return ordered, misfit


def _grid_order(centres: np.ndarray) -> tuple[np.ndarray, float] | None:
    """12 centres in contract pit order and their worst distance (in pitches) from a fitted
    2x6 grid, or None unless they form two rows of six."""
    mean = centres.mean(axis=0)
    _, _, axes = np.linalg.svd(centres - mean)
    along = axes[0] if axes[0][0] >= 0 else -axes[0]
    across = np.array([-along[1], along[0]])  # points down the image when the rows run left to right
    if abs(along[0]) < np.cos(np.radians(35)):
        return None  # rows must run roughly across the image for South to be "nearest the bottom"
    offsets = centres - mean
    position, height = offsets @ along, offsets @ across
    by_height = np.argsort(height)
    north_row, south_row = by_height[:PITS_PER_ROW], by_height[PITS_PER_ROW:]
    row_gap = height[south_row].min() - height[north_row].max()
    pitch = (position.max() - position.min()) / (PITS_PER_ROW - 1)
    if row_gap < 0.5 * pitch:
        return None
    south = south_row[np.argsort(position[south_row])]
    north = north_row[np.argsort(position[north_row])][::-1]
    ordered = centres[np.concatenate([south, north])]
    places = _fitted_grid(ordered)
    if places is None:
        return None
    misfit = float(np.linalg.norm(places - ordered, axis=1).max() / pitch)
    return (ordered, misfit) if misfit < 0.25 else None


def _fitted_grid(ordered: np.ndarray) -> np.ndarray | None:
    """Where the 2x6 grid fitted through 12 centres in contract order puts each pit, or None."""
    board = _board_points(1.0)
    homography, _ = cv2.findHomography(board, ordered, 0)
    if homography is None:
        return None
    return cv2.perspectiveTransform(board.reshape(-1, 1, 2), homography).reshape(-1, 2)


def _board_points(row_spacing: float) -> np.ndarray:
    return np.array(
        [(column, row * row_spacing) for column, row in map(pit_column_and_row, range(PIT_COUNT))], np.float64
    )


def _fit_geometry(centres: np.ndarray, image_size: tuple[int, int], frame: np.ndarray, seed_mask: np.ndarray) -> BoardGeometry:
    scale = frame.shape[1] / image_size[0]
    ordered, _ = _grid_order(centres)
    rough, _ = cv2.findHomography(_board_points(1.0), ordered, 0)
    # Rows one unit apart are not to scale: measure the row spacing in pitches so circles stay round.
    middle = cv2.perspectiveTransform(np.array([[[2.5, 0.0]], [[2.5, 1.0]], [[2.0, 0.5]], [[3.0, 0.5]]]), rough)
    row_spacing = float(np.linalg.norm(middle[1] - middle[0]) / np.linalg.norm(middle[3] - middle[2]))
    homography, _ = cv2.findHomography(_board_points(row_spacing), ordered, 0)
    geometry = BoardGeometry(tuple(homography.reshape(-1)), image_size, row_spacing, 0.4, 1.2, 0.45, 0.9 * row_spacing)
    edges = _lightness_edges(frame)
    geometry = _pits_on_their_rims(geometry, edges, scale, seed_mask)
    pit_radius = geometry.pit_radius
    edges = _away_from_seeds(edges, seed_mask)
    stores = (PIT_COUNT, PIT_COUNT + 1)
    best = max(
        (
            _rim_contrast(edges, geometry, scale, stores, store_offset=d, store_half_length=hl, store_half_width=hw),
            d, hl, hw,
        )
        # Stores lie about a pitch beyond the end pits (at most 1.3) and span both rows; wider
        # searches lock onto the board's ends, whose edge against the table is stronger.
        for d in np.arange(pit_radius + 0.45, 1.35, 0.05)
        for hl in np.arange(0.3, min(d - pit_radius - 0.05, 0.6), 0.05)
        for hw in np.arange(0.5, 1.0, 0.05) * row_spacing
    )
    return _with(geometry, store_offset=float(best[1]), store_half_length=float(best[2]), store_half_width=float(best[3]))


def _pits_on_their_rims(geometry: BoardGeometry, edges: np.ndarray, scale: float, seed_mask: np.ndarray) -> BoardGeometry:
    """The layout moved from the seed clusters' centres onto the pits' rims.

    Start seeds need not lie in the middle of their pits, so each pit's circle is moved within
    _RIM_REACH to where its rim stands out most, at the one radius that, so placed, stands out
    most over all pits (a radius measured around circles off their rims is off too; one for all
    keeps a round bead's outline from passing for a small rim), moved again in finer steps, and
    the homography fitted again to the moved centres; twice, then the radius measured on it.
    Seeds are not masked out: a pit's seeds may cover its whole bowl in the seed mask, rim and
    all, and a radius found away from them lies on the board beyond the rim (up to 1.2x the true
    radius on our renders). A circle's edge strength is taken where most of it is
    (`_RIM_QUANTILE`), which a ring of rim raises all round and the seeds' outlines, crossing it
    here and there, do not; and a circle must hold its pit's start seeds (`_SEEDS_HELD`), or a
    cluster of crisp seeds in a bowl with a soft rim passes for a small pit.
    """
    # Every third seed pixel is enough to tell whether a circle holds them.
    seed_points = np.column_stack(np.nonzero(seed_mask)[::-1])[::3].astype(np.float64) / scale
    for _ in range(_RIM_PASSES):
        board = np.array([geometry.centre_in_board(pit) for pit in range(PIT_COUNT)])
        seeds = _seeds_by_pit(geometry, board, seed_points)
        coarse = _offsets(_RIM_REACH, _RIM_STEPS[0])
        # Per pit and radius, the ridge of the best-placed circle, and where it is.
        ridges = np.array([
            _held_ridge(edges, geometry, scale, board[pit] + coarse, _PIT_RADII, seeds[pit]) for pit in range(PIT_COUNT)
        ])
        radius = int(np.argmax(ridges.max(axis=1).sum(axis=0)))
        board += coarse[np.argmax(ridges[:, :, radius], axis=1)]
        fine = _offsets(2 * _RIM_STEPS[0], _RIM_STEPS[1])
        for pit in range(PIT_COUNT):
            trials = board[pit] + fine
            board[pit] = trials[np.argmax(_held_ridge(edges, geometry, scale, trials, _PIT_RADII[[radius]], seeds[pit])[:, 0])]
        homography, _ = cv2.findHomography(_board_points(geometry.row_spacing), geometry.to_image(board), 0)
        geometry = _with(geometry, homography=tuple(homography.reshape(-1)))
    centres = np.array([geometry.centre_in_board(pit) for pit in range(PIT_COUNT)])
    seeds = _seeds_by_pit(geometry, centres, seed_points)
    ridges = sum(_held_ridge(edges, geometry, scale, centres[[pit]], _PIT_RADII, seeds[pit])[0] for pit in range(PIT_COUNT))
    return _with(geometry, pit_radius=float(_PIT_RADII[np.argmax(ridges)]))


def _seeds_by_pit(geometry: BoardGeometry, centres: np.ndarray, points: np.ndarray) -> list[np.ndarray]:
    """The seed mask's points (full-size image pixels) in the board frame, by the pit centre they
    lie within half a pitch of."""
    inverse = np.linalg.inv(geometry.matrix())
    on_board = cv2.perspectiveTransform(points.reshape(-1, 1, 2), inverse).reshape(-1, 2)
    reach = np.linalg.norm(on_board[:, None, :] - centres[None, :, :], axis=2)
    nearest = np.argmin(reach, axis=1)
    near = reach[np.arange(len(on_board)), nearest] < 0.5
    return [on_board[near & (nearest == pit)] for pit in range(PIT_COUNT)]


def _held_ridge(
    edges: np.ndarray, geometry: BoardGeometry, scale: float, centres: np.ndarray, radii: np.ndarray, seeds: np.ndarray
) -> np.ndarray:
    """`_rim_ridge` of each circle, far below any ridge where the circle leaves out more of the
    pit's start seeds than `_SEEDS_HELD` allows."""
    ridges = _rim_ridge(edges, geometry, scale, centres, radii)
    if len(seeds) == 0:
        return ridges
    reach = np.linalg.norm(seeds[None, :, :] - centres[:, None, :], axis=2)  # circles x seed points
    held = (reach[:, :, None] <= radii[None, None, :]).mean(axis=1) >= _SEEDS_HELD
    return np.where(held, ridges, ridges - 1e6)


def _offsets(reach: float, step: float) -> np.ndarray:
    steps = np.arange(-reach, reach + step / 2, step)
    return np.stack(np.meshgrid(steps, steps), axis=-1).reshape(-1, 2)


def _rim_ridge(edges: np.ndarray, geometry: BoardGeometry, scale: float, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """How much each circle (board-frame centre x radius, len(centres) x len(radii)) stands out
    as a rim: the edge strength most of the way around it (`_RIM_QUANTILE`) against that around
    circles 0.8 and 1.2 times as wide."""
    rings = np.array([0.8, 1.0, 1.2])
    points = (
        centres[:, None, None, None, :]
        + (rings[None, None, :, None, None] * radii[None, :, None, None, None]) * _RIM_DIRECTIONS[None, None, None]
    )
    image = geometry.to_image(points.reshape(-1, 2), scale).astype(np.float32)
    # Rows as long as a circle: remap takes maps fewer than 32767 wide.
    samples = cv2.remap(
        edges, image[:, 0].reshape(-1, len(_RIM_DIRECTIONS)), image[:, 1].reshape(-1, len(_RIM_DIRECTIONS)),
        cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0,
    )
    strengths = np.percentile(samples.reshape(points.shape[:-1]), _RIM_QUANTILE, axis=-1)
    return strengths[..., 1] - 0.5 * (strengths[..., 0] + strengths[..., 2])


def _with(geometry: BoardGeometry, **changes) -> BoardGeometry:
    return BoardGeometry(**{**geometry.__dict__, **changes})


def _lightness_edges(frame: np.ndarray) -> np.ndarray:
    """Gradient magnitude of lightness: pit and store rims are shading edges."""
    lightness = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32), (0, 0), 1.5)
    return cv2.magnitude(cv2.Sobel(lightness, cv2.CV_32F, 1, 0), cv2.Sobel(lightness, cv2.CV_32F, 0, 1))


def _away_from_seeds(edges: np.ndarray, seed_mask: np.ndarray) -> np.ndarray:
    """A copy of the edges with those on and beside seeds left out."""
    return np.where(cv2.dilate(seed_mask, np.ones((7, 7), np.uint8)) > 0, 0, edges).astype(edges.dtype)


def _rim_contrast(edges: np.ndarray, geometry: BoardGeometry, scale: float, regions, **layout) -> float:
    """Edge strength on the outlines against that just inside and outside: a rim is a ridge of edges.

    Plain edge strength would also reward a small ellipse hugging one side of a big rim.
    """
    on_rim = _rim_strength(edges, geometry, scale, regions, **layout)
    inside = _rim_strength(edges, geometry, scale, regions, shrink=0.8, **layout)
    outside = _rim_strength(edges, geometry, scale, regions, shrink=1.2, **layout)
    return on_rim - 0.5 * (inside + outside)


def _rim_strength(edges: np.ndarray, geometry: BoardGeometry, scale: float, regions, shrink: float = 1.0, **layout) -> float:
    """Mean edge strength along the outlines of the given regions under a trial layout."""
    trial = _with(geometry, **layout)
    points = np.concatenate([trial.outline_in_image(region, scale, shrink) for region in regions]).astype(np.float32)
    height, width = edges.shape
    inside = (points[:, 0] >= 0) & (points[:, 0] < width - 1) & (points[:, 1] >= 0) & (points[:, 1] < height - 1)
    if not inside.any():
        return 0.0
    samples = cv2.remap(edges, points[inside, 0].reshape(1, -1), points[inside, 1].reshape(1, -1), cv2.INTER_LINEAR)
    return float(samples.mean())


def _learn_colours(frame: np.ndarray, geometry: BoardGeometry, seed_mask: np.ndarray) -> SeedColourModel:
    """Seed colours from the contrasted pixels inside pits whose colour is not the wood's, and
    from the vivid ones off the wood however little they contrast; board colours from two
    samples, the board top and what the pits show besides their seeds.

    The whole board top counts as board, lit spots and store highlights included: recognition must
    not take a lamp's hot spot in an emptied pit for seeds. A deep bowl's shaded wall contrasts
    with the lit board as much as a grey seed does, so contrast alone would learn it as seed.
    """
    height, width = frame.shape[:2]
    scale = width / geometry.image_size[0]
    pits = np.zeros((height, width), np.uint8)
    pit_middles = np.zeros((height, width), np.uint8)
    for region in range(PIT_COUNT):
        cv2.fillPoly(pits, [np.round(geometry.outline_in_image(region, scale)).astype(np.int32)], 1)
        cv2.fillPoly(pit_middles, [np.round(geometry.outline_in_image(region, scale, _RIM_BAND)).astype(np.int32)], 1)
    board = np.zeros((height, width), np.uint8)
    cv2.fillPoly(board, [np.round(_board_outline(geometry, scale)).astype(np.int32)], 1)
    # The board top shows the wood in light; start seeds gather in the middle of their pits, so a
    # pit's outer band shows its bowl's wood in shade too, but a seed may reach into it.
    top = (board > 0) & (pits == 0)
    bowl_bands = (pits > 0) & (pit_middles == 0)
    # A seed's outline blends its colour with the wood's: those pixels stay seed beside the seed.
    off_wood = _unlike_wood(frame, top, bowl_bands, seed_mask)
    contrasted_off_wood = seed_mask & off_wood.astype(np.uint8)
    seed_mask = seed_mask & cv2.dilate(contrasted_off_wood, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    near_seed = cv2.dilate(seed_mask, np.ones((5, 5), np.uint8)) & pits
    # Vivid colours off the wood in a pit are seeds the contrast missed: under a warm lamp red
    # beads on red wood stand out less than half as much as blue ones (unseen glass 1225), and
    # learned as board, a lone red bead reads as an empty pit. Glare and crevices are not vivid.
    missed = (pits > 0) & off_wood & vivid(frame) & (near_seed == 0)
    # Missed pixels lie 3 pixels or more from the mask, so one erosion takes both cores.
    core_seed = cv2.erode(seed_mask | missed.astype(np.uint8), np.ones((3, 3), np.uint8)) & pits
    # Neither `near_seed` nor `missed` reaches the top: they lie in the pits.
    seeds, top_pixels = frame[core_seed > 0], frame[top]
    bowl_pixels = frame[(pits > 0) & (near_seed == 0) & ~missed]
    if len(seeds) < 100 or len(top_pixels) < 100:
        raise ArbiterError(f"the photo {_NOT_A_START}")
    # The bowls, what a pit shows besides its seeds, are a board sample of their own. Pooled with
    # the top, the shaded walls of unseen nicker 1228's dark pits (through the soft camera) took
    # seed probabilities of 0.56 from the dark blurred outlines of its pale nuts. Weighed alike
    # with it instead, the top's lit wood lost weight, and the lit floors of unseen nicker 1259's
    # emptied bowls read as 1-2 seeds.
    board_samples = (top_pixels, bowl_pixels) if len(bowl_pixels) >= 100 else (top_pixels,)
    return SeedColourModel.learn(seeds, *board_samples)


def _unlike_wood(frame: np.ndarray, top: np.ndarray, bowl_bands: np.ndarray, seed_mask: np.ndarray) -> np.ndarray:
    """Pixels whose colour lies off the wood's colours at their own lightness.

    Shade moves the wood's colour along a path through Lab (darker, and towards the colour of the
    light that reaches the shade), traced as the median a, b per lightness band of the board top's
    pixels or the bowls' outer bands', whichever shows more of that band: where the top shows it
    too, the few pixels of seeds reaching into the bowls' bands are outnumbered, and the darkest
    shade, which only the bowls show, is in the seed mask too (a deep bowl's wall contrasts with
    the lit top as much as a seed does). Light reflected off the wood makes the bowls' shade more
    saturated than the top's grain as dark, so their path is traced again away from the seed mask
    (whose blurred outlines hold seed colours), and a pixel is off the wood when it is off both
    paths: further from the path's median than _WOOD_SPREAD times the distance most of that
    band's wood pixels keep.
    """
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB).astype(np.float32)
    band = (lab[..., 0] // _LIGHTNESS_BAND).astype(int)
    away_from_seeds = bowl_bands & (cv2.dilate(seed_mask, np.ones((5, 5), np.uint8)) == 0)
    paths = [
        _wood_path([(band[wood], lab[..., 1:][wood]) for wood in woods]) for woods in ((top, bowl_bands), (away_from_seeds,))
    ]
    # Seeds may hide every bowl's band; the top alone still traces the first path.
    paths = [path for path in paths if path is not None]
    if not paths:
        raise ArbiterError(f"the photo {_NOT_A_START}")
    unlike = np.ones(frame.shape[:2], bool)
    for median, spread in paths:
        unlike &= np.linalg.norm(lab[..., 1:] - median[band], axis=2) > _WOOD_SPREAD * spread[band]
    return unlike


def _wood_path(samples: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray] | None:
    """Per lightness band, the median a, b of whichever sample of wood pixels (their bands, their
    a, b) shows more of that band, and the distance from it that 90 % of them keep; bands no
    sample shows take the nearest band's. None if no sample shows a band with enough pixels."""
    bands = 256 // _LIGHTNESS_BAND
    median = np.full((bands, 2), np.nan)
    spread = np.full(bands, np.nan)
    for index in range(bands):
        chroma = max((ab[shown == index] for shown, ab in samples), key=len)
        if len(chroma) >= _BAND_PIXELS:
            median[index] = np.median(chroma, axis=0)
            spread[index] = np.percentile(np.linalg.norm(chroma - median[index], axis=1), 90)
    known = np.flatnonzero(np.isfinite(spread))
    if len(known) == 0:
        return None
    every = np.arange(bands)
    median = np.column_stack([np.interp(every, known, median[known, channel]) for channel in range(2)])
    return median, np.interp(every, known, spread[known])


def _board_outline(geometry: BoardGeometry, scale: float) -> np.ndarray:
    """The board's playing surface: a rectangle just around the pits and stores."""
    margin = 0.1
    left = -geometry.store_offset - geometry.store_half_length - margin
    right = PITS_PER_ROW - 1 + geometry.store_offset + geometry.store_half_length + margin
    bottom = -geometry.pit_radius - margin
    top = geometry.row_spacing + geometry.pit_radius + margin
    return geometry.to_image(np.array([[left, bottom], [right, bottom], [right, top], [left, top]]), scale)


def _learn_spotters(frame: np.ndarray, geometry: BoardGeometry, colours: SeedColourModel, counts: CountModel):
    """The seed spotters under which most pits show their 4 seeds: (spotters, pits agreeing).

    Each cue is tried over a range of thresholds (glints also over a few windows, see
    `_GLINT_WINDOWS`); the cue with the most pits showing exactly 4
    spots wins, at the middle of its best range of thresholds, as far as possible from both
    missing seeds and counting wood grain. On a tie both cues count: each misses seeds its own
    way, so recognition takes the larger count. Glints also count one pit short of the best (see
    `_agreement_needed`).
    No cue agreeing in 10 pits means counting by area alone (matte, oddly shaped seeds); pits
    agreeing on another number mean the photo is not of the start position.
    """
    seed_diameter = 2 * np.sqrt(float(np.median(counts.seed_area[:PIT_COUNT])) / np.pi)
    trials = {
        "glint": np.arange(4.0, 80.0, 2.0),  # lightness units above the surroundings
        "shape": seed_diameter / 2 * np.arange(0.2, 0.95, 0.05),  # pixels from the blob's edge
    }

    def spot_counts(cue: str, kernel: int) -> np.ndarray:
        return np.array([
            measure_regions(frame, geometry, colours, (SeedSpotter(cue, kernel, t),)).spots[:PIT_COUNT]
            for t in trials[cue]
        ]).astype(int)

    def agreeing_pits(spots: np.ndarray) -> np.ndarray:
        return (spots == START_SEEDS_PER_PIT).sum(axis=1)

    # Touching round beads' glints lie about one seed diameter apart, just where a window of one
    # diameter starts to merge them: the glint window is learned too, the full diameter first.
    windows = list(dict.fromkeys(max(3, int(round(seed_diameter * share))) for share in _GLINT_WINDOWS))
    kernels = {"shape": windows[0]}
    found = {"shape": spot_counts("shape", windows[0])}
    tried = []
    for window in windows:
        tried.append((window, spot_counts("glint", window)))
        if agreeing_pits(tried[-1][1]).max() == PIT_COUNT:
            break  # no smaller window can do better than every pit agreeing
    kernels["glint"], found["glint"] = max(tried, key=lambda window_spots: agreeing_pits(window_spots[1]).max())
    agreement = {cue: agreeing_pits(spots) for cue, spots in found.items()}
    best = max(int(agreement[cue].max()) for cue in SPOT_CUES)
    usual, showing = _other_count_most_shown(found.values())
    if showing > best and showing >= _SPOT_AGREEMENT - 2:
        raise ArbiterError(f"the photo shows {_seeds(usual)} in most pits: calibration needs the start position with 4 in each pit")
    if best < _SPOT_AGREEMENT:
        return (), best
    # How often a pit's count is one off, from the pits that missed 4 (plus half a miss, so that
    # 12 agreeing pits do not promise perfection).
    slip = (PIT_COUNT - best + 0.5) / (PIT_COUNT + 1)
    spotters = []
    for cue in SPOT_CUES:
        level = int(agreement[cue].max())
        only_short = bool((found[cue][agreement[cue] == level] <= START_SEEDS_PER_PIT).all())
        if level >= _agreement_needed(cue, best, only_short):
            agreeing = trials[cue][agreement[cue] == level]
            spotter = SeedSpotter(cue, kernels[cue], float((agreeing.min() + agreeing.max()) / 2), slip)
            if cue == "glint":
                spotter = replace(spotter, glint_offset=_glint_offset(frame, colours, spotter))
            spotters.append(spotter)
    return tuple(spotters), best


def _other_count_most_shown(found: Iterable[np.ndarray]) -> tuple[int, int]:
    """Of the counts other than 4, the one most pits show at one threshold of one cue, and how
    many pits show it there. `found`: per cue, the pits' spot counts, one row per threshold.

    Only thresholds at which every pit shows a seed count: past them lone seeds vanish too, and a
    heap of touching nuts shows one peak (a start's heaped nuts read "1 seed in most pits" at the
    shape cue's highest thresholds)."""
    every_pit_seen = [_with_most_spots(spots[(spots > 0).all(axis=1)]) for spots in found]
    showing = {
        n: max(int((spots == n).sum(axis=1).max(initial=0)) for spots in every_pit_seen)
        for n in range(1, 3 * START_SEEDS_PER_PIT)
        if n != START_SEEDS_PER_PIT
    }
    usual = max(showing, key=showing.get)
    return usual, showing[usual]


def _with_most_spots(spots: np.ndarray) -> np.ndarray:
    """The thresholds' rows of pit spot counts that keep `_KEPT_SPOTS` of the most spots any row
    shows: where a cue has lost more, seeds are vanishing, and what the pits show is what is left."""
    if not len(spots):
        return spots
    totals = spots.sum(axis=1)
    return spots[totals >= _KEPT_SPOTS * totals.max()]


def _agreement_needed(cue: str, best: int, only_short: bool) -> int:
    """Pits that must show their 4 seeds for a cue to count, when the best cue shows them in `best`
    (`only_short`: the pits where the cue misses show fewer seeds, never more).

    Glints count one pit short of the best: touching seeds' glints stay apart, and only glints
    find the half-buried seeds of a pile, which the shape cue merges with the seeds on top. Two
    pits short if they only miss seeds: a white bead's glint hardly stands out from the bead, and
    recognition takes the larger of the cues' counts, so a cue that misses seeds costs nothing
    where the other finds them. The shape cue only counts on a tie: one pit short, long nuts'
    merged shapes over-count.
    """
    if cue != "glint":
        return best
    return max(_SPOT_AGREEMENT, best - (2 if only_short else 1))


def _glint_offset(frame: np.ndarray, colours: SeedColourModel, spotter: SeedSpotter) -> tuple[float, float]:
    """Median offset from a glint to the centre of the seed pixels around it (within 0.6 of a seed
    across, so the neighbours' pixels hardly count), over the start photo's seeds lying apart."""
    seed_like = colours.probability(frame) > 0.5
    glints, _ = spotter.spots(frame, seed_like)
    reach = 0.6 * spotter.kernel
    ys, xs = np.nonzero(seed_like)
    offsets = []
    for x, y in spotter.glint_centres(glints):
        near = (xs - x) ** 2 + (ys - y) ** 2 <= reach**2
        if near.any():
            offsets.append((xs[near].mean() - x, ys[near].mean() - y))
    if not offsets:
        return 0.0, 0.0
    dx, dy = np.median(np.array(offsets), axis=0)
    return float(dx), float(dy)
