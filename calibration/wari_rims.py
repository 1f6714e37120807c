"""Moving a Wari board's fitted layout onto the rims of its pits and stores.

The grid through the seed clusters' centres is a first guess; each pit's circle is moved onto
the ridge of lightness edges its rim makes, the homography fitted again, and the stores found
where their outlines stand out most.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.wari_board import PIT_COUNT, BoardGeometry
from calibration.wari_grid import board_points, grid_order
from vision.wari_params import (
    PIT_RADII,
    RIM_PASSES,
    RIM_QUANTILE,
    RIM_REACH,
    RIM_SAMPLES,
    RIM_STEPS,
    SEEDS_HELD,
    STORE_HALF_LENGTHS,
    STORE_HALF_WIDTHS,
    STORE_OFFSETS,
)

_PIT_RADII = np.arange(*PIT_RADII)  # pitches
_RIM_ANGLES = np.linspace(0, 2 * np.pi, RIM_SAMPLES, endpoint=False)
_RIM_DIRECTIONS = np.column_stack([np.cos(_RIM_ANGLES), np.sin(_RIM_ANGLES)])


def fit_geometry(centres: np.ndarray, image_size: tuple[int, int], frame: np.ndarray, seed_mask: np.ndarray) -> BoardGeometry:
    scale = frame.shape[1] / image_size[0]
    ordered, _ = grid_order(centres)
    rough, _ = cv2.findHomography(board_points(1.0), ordered, 0)
    # Rows one unit apart are not to scale: measure the row spacing in pitches so circles stay round.
    middle = cv2.perspectiveTransform(np.array([[[2.5, 0.0]], [[2.5, 1.0]], [[2.0, 0.5]], [[3.0, 0.5]]]), rough)
    row_spacing = float(np.linalg.norm(middle[1] - middle[0]) / np.linalg.norm(middle[3] - middle[2]))
    homography, _ = cv2.findHomography(board_points(row_spacing), ordered, 0)
    geometry = BoardGeometry(tuple(homography.reshape(-1)), image_size, row_spacing, 0.4, 1.2, 0.45, 0.9 * row_spacing)
    edges = lightness_edges(frame)
    geometry = pits_on_their_rims(geometry, edges, scale, seed_mask)
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
        for d in np.arange(pit_radius + STORE_OFFSETS[0], *STORE_OFFSETS[1:])
        for hl in np.arange(STORE_HALF_LENGTHS[0], min(d - pit_radius - 0.05, STORE_HALF_LENGTHS[1]), STORE_HALF_LENGTHS[2])
        for hw in np.arange(*STORE_HALF_WIDTHS) * row_spacing
    )
    return _with(geometry, store_offset=float(best[1]), store_half_length=float(best[2]), store_half_width=float(best[3]))


def pits_on_their_rims(geometry: BoardGeometry, edges: np.ndarray, scale: float, seed_mask: np.ndarray) -> BoardGeometry:
    """The layout moved from the seed clusters' centres onto the pits' rims.

    Start seeds need not lie in the middle of their pits, so each pit's circle is moved within
    RIM_REACH to where its rim stands out most, at the one radius that, so placed, stands out
    most over all pits (a radius measured around circles off their rims is off too; one for all
    keeps a round bead's outline from passing for a small rim), moved again in finer steps, and
    the homography fitted again to the moved centres; twice, then the radius measured on it.
    Seeds are not masked out: a pit's seeds may cover its whole bowl in the seed mask, rim and
    all, and a radius found away from them lies on the board beyond the rim (up to 1.2x the true
    radius on our renders). A circle's edge strength is taken where most of it is
    (`RIM_QUANTILE`), which a ring of rim raises all round and the seeds' outlines, crossing it
    here and there, do not; and a circle must hold its pit's start seeds (`SEEDS_HELD`), or a
    cluster of crisp seeds in a bowl with a soft rim passes for a small pit.
    """
    # Every third seed pixel is enough to tell whether a circle holds them.
    seed_points = np.column_stack(np.nonzero(seed_mask)[::-1])[::3].astype(np.float64) / scale
    for _ in range(RIM_PASSES):
        board = np.array([geometry.centre_in_board(pit) for pit in range(PIT_COUNT)])
        seeds = _seeds_by_pit(geometry, board, seed_points)
        coarse = _offsets(RIM_REACH, RIM_STEPS[0])
        # Per pit and radius, the ridge of the best-placed circle, and where it is.
        ridges = np.array([
            _held_ridge(edges, geometry, scale, board[pit] + coarse, _PIT_RADII, seeds[pit]) for pit in range(PIT_COUNT)
        ])
        radius = int(np.argmax(ridges.max(axis=1).sum(axis=0)))
        board += coarse[np.argmax(ridges[:, :, radius], axis=1)]
        fine = _offsets(2 * RIM_STEPS[0], RIM_STEPS[1])
        for pit in range(PIT_COUNT):
            trials = board[pit] + fine
            board[pit] = trials[np.argmax(_held_ridge(edges, geometry, scale, trials, _PIT_RADII[[radius]], seeds[pit])[:, 0])]
        homography, _ = cv2.findHomography(board_points(geometry.row_spacing), geometry.to_image(board), 0)
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
    pit's start seeds than `SEEDS_HELD` allows."""
    ridges = _rim_ridge(edges, geometry, scale, centres, radii)
    if len(seeds) == 0:
        return ridges
    reach = np.linalg.norm(seeds[None, :, :] - centres[:, None, :], axis=2)  # circles x seed points
    held = (reach[:, :, None] <= radii[None, None, :]).mean(axis=1) >= SEEDS_HELD
    return np.where(held, ridges, ridges - 1e6)


def _offsets(reach: float, step: float) -> np.ndarray:
    steps = np.arange(-reach, reach + step / 2, step)
    return np.stack(np.meshgrid(steps, steps), axis=-1).reshape(-1, 2)


def _rim_ridge(edges: np.ndarray, geometry: BoardGeometry, scale: float, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """How much each circle (board-frame centre x radius, len(centres) x len(radii)) stands out
    as a rim: the edge strength most of the way around it (`RIM_QUANTILE`) against that around
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
    strengths = np.percentile(samples.reshape(points.shape[:-1]), RIM_QUANTILE, axis=-1)
    return strengths[..., 1] - 0.5 * (strengths[..., 0] + strengths[..., 2])


def _with(geometry: BoardGeometry, **changes) -> BoardGeometry:
    return BoardGeometry(**{**geometry.__dict__, **changes})


def lightness_edges(frame: np.ndarray) -> np.ndarray:
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
