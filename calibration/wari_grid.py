"""Finding a Wari start photo's 12 pits: its seeds' blobs grouped into 12 clusters on a 2x6 grid.

Seeds are the most contrasted pixels of a start photo (`seed_mask`); their blobs are merged
nearest first (`groupings`) until 12 heavy clusters form two rows of six (`grid_order`).
"""
from __future__ import annotations

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, PITS_PER_ROW, pit_column_and_row
from calibration.wari_start_checks import NOT_A_START
from vision.wari_params import (
    ALIKE_PITS,
    ARC_OPENINGS,
    FAINT_PIT,
    GRID_MISFIT,
    MIN_STANDOUT,
    REGROUP_PASSES,
    ROW_TILT,
    SEED_OPENING,
    SPARE_FIT,
    STANDOUT_SHARES,
)


def pit_clusters_by_share(contrast: np.ndarray, regroup: bool = False, opening: int = SEED_OPENING):
    """The seed mask, the centres (working-frame pixels) of the 12 pits' seed clusters and whether
    the clusters weigh alike, at each of `STANDOUT_SHARES` at which alike clusters form the grid,
    in turn; failing that, where clusters one of which is faint form it; a refusal if none does.
    With `regroup`, each cluster's blobs are given to the pits their grid places lie nearest; the
    masks are opened by `opening` (see `standout_mask`)."""
    grid_found = False
    faint_grids = []
    for share in STANDOUT_SHARES:
        seed_mask = standout_mask(contrast, share, opening)
        groupings, areas, points = blob_groupings(seed_mask)
        centres = best_grid(groupings, areas, points, ALIKE_PITS, regroup)
        if centres is not None:
            grid_found = True
            yield seed_mask, centres, True
            continue
        # Tried only where no share gives alike clusters (`FAINT_PIT`); refused, such a photo is
        # told apart from one of no board at all.
        centres = best_grid(groupings, areas, points, FAINT_PIT, regroup)
        if centres is not None:
            faint_grids.append((seed_mask, centres, False))
    if grid_found:
        return
    if not faint_grids:
        raise ArbiterError(f"the photo {NOT_A_START}")
    yield from faint_grids


def second_readings(contrast: np.ndarray):
    """The pit clusters to read a refused photo by once more, in turn (each as
    `pit_clusters_by_share` gives them): where the pits formed the grid, every cluster's blobs
    regrouped, if that moves a pit at some standout share (both give the centres in contract
    order); where they formed none, the masks opened by each of `ARC_OPENINGS`."""
    try:
        as_merged = list(pit_clusters_by_share(contrast))
    except ArbiterError:
        for opening in ARC_OPENINGS:
            yield pit_clusters_by_share(contrast, opening=opening)
        return
    regrouped = list(pit_clusters_by_share(contrast, regroup=True))
    if len(as_merged) != len(regrouped) or not all(
        np.allclose(first[1], second[1]) for first, second in zip(as_merged, regrouped)
    ):
        yield regrouped


def standout_mask(contrast: np.ndarray, share: float, opening: int = SEED_OPENING) -> np.ndarray:
    """Pixels that stand out clearly: seeds are the most contrasted ~2% of a start photo. Opened by
    a disc `opening` pixels across, which keeps seed-sized blobs and drops thinner rim highlights."""
    threshold = max(MIN_STANDOUT, share * float(np.percentile(contrast, 99.5)))
    mask = (contrast > threshold).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening)))


def blob_groupings(seed_mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
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


def best_grid(
    groupings: list[np.ndarray], areas: np.ndarray, points: np.ndarray, alike: float, regroup: bool = False
) -> np.ndarray | None:
    """Of the groupings whose 12 heavy clusters form the grid, the centres of the best fitting, or
    None: with no spare cluster, unless one spare gives a grid fitting `SPARE_FIT` times as well
    or none forms it without."""
    best = []
    for spare in (0, 1):
        found = [heavy_cluster_centres(labels, areas, points, spare, alike, regroup) for labels in groupings]
        best.append(min((f for f in found if f is not None), key=lambda f: f[1], default=None))
    without, with_spare = best
    if without is not None and (with_spare is None or with_spare[1] >= SPARE_FIT * without[1]):
        return without[0]
    return None if with_spare is None else with_spare[0]


def heavy_cluster_centres(
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
        grid = grid_order(centres)
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
    for _ in range(REGROUP_PASSES):
        places = _fitted_grid(ordered)
        nearest = np.argmin(np.linalg.norm(points[:, None] - places[None], axis=2), axis=1)
        if (owner is not None and (nearest == owner).all()) or len(np.unique(nearest)) < PIT_COUNT:
            break
        grid = grid_order(np.array([
            np.average(points[nearest == pit], axis=0, weights=areas[nearest == pit]) for pit in range(PIT_COUNT)
        ]))
        if grid is None:
            break
        owner, (ordered, misfit) = nearest, grid
    return ordered, misfit


def grid_order(centres: np.ndarray) -> tuple[np.ndarray, float] | None:
    """12 centres in contract pit order and their worst distance (in pitches) from a fitted
    2x6 grid, or None unless they form two rows of six."""
    mean = centres.mean(axis=0)
    _, _, axes = np.linalg.svd(centres - mean)
    along = axes[0] if axes[0][0] >= 0 else -axes[0]
    across = np.array([-along[1], along[0]])  # points down the image when the rows run left to right
    if abs(along[0]) < np.cos(np.radians(ROW_TILT)):
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
    return (ordered, misfit) if misfit < GRID_MISFIT else None


def _fitted_grid(ordered: np.ndarray) -> np.ndarray | None:
    """Where the 2x6 grid fitted through 12 centres in contract order puts each pit, or None."""
    board = board_points(1.0)
    homography, _ = cv2.findHomography(board, ordered, 0)
    if homography is None:
        return None
    return cv2.perspectiveTransform(board.reshape(-1, 1, 2), homography).reshape(-1, 2)


def board_points(row_spacing: float) -> np.ndarray:
    return np.array(
        [(column, row * row_spacing) for column, row in map(pit_column_and_row, range(PIT_COUNT))], np.float64
    )
