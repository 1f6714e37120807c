"""Where the pits and stores of a Wari board lie in the camera image.

The board has its own flat coordinate frame measured in pit pitches: column c (0..5, image left
to right) is centred on x = c, South's row on y = 0 and North's row on y = row_spacing, so circles
stay circles. A homography maps that frame to full-resolution image pixels; it absorbs the
camera's rotation, scale and slight tilt.

Region order follows contract.md: pits[0..5] are South's a..f (left to right in the image),
pits[6..11] North's a..f (right to left in the image), then South's store and North's store. Each
player's store is on his right hand, so South's store is at the image's right end.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np

from engines.errors import ArbiterError

PITS_PER_ROW = 6
PIT_COUNT = 2 * PITS_PER_ROW
REGION_COUNT = PIT_COUNT + 2
_OUTLINE_POINTS = 48


def pit_column_and_row(pit: int) -> tuple[int, int]:
    """Image column (0 = leftmost) and row (0 = South, nearest the image bottom) of a pit index."""
    if pit < PITS_PER_ROW:
        return pit, 0
    return PIT_COUNT - 1 - pit, 1


@dataclass(frozen=True)
class BoardGeometry:
    """The board's layout in its own frame and the homography placing it in the image."""

    homography: tuple[float, ...]  # 3x3 row-major, board frame -> full-resolution pixels
    image_size: tuple[int, int]  # width, height the homography refers to
    row_spacing: float
    pit_radius: float
    store_offset: float  # distance from an end column's centre to its store's centre
    store_half_length: float  # along the rows
    store_half_width: float  # across the rows

    def matrix(self) -> np.ndarray:
        return np.array(self.homography, dtype=np.float64).reshape(3, 3)

    def centre_in_board(self, region: int) -> tuple[float, float]:
        """Centre of a region (pit index, then 12 = South's store, 13 = North's store) in the board frame."""
        middle = self.row_spacing / 2
        if region == PIT_COUNT:
            return PITS_PER_ROW - 1 + self.store_offset, middle
        if region == PIT_COUNT + 1:
            return -self.store_offset, middle
        column, row = pit_column_and_row(region)
        return float(column), row * self.row_spacing

    def outline_in_board(self, region: int, shrink: float = 1.0) -> np.ndarray:
        """Points around a region's rim (an ellipse for stores) in the board frame."""
        cx, cy = self.centre_in_board(region)
        if region < PIT_COUNT:
            half_x = half_y = self.pit_radius
        else:
            half_x, half_y = self.store_half_length, self.store_half_width
        angles = np.linspace(0, 2 * np.pi, _OUTLINE_POINTS, endpoint=False)
        return np.stack([cx + shrink * half_x * np.cos(angles), cy + shrink * half_y * np.sin(angles)], axis=1)

    def to_image(self, board_points: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """Map Nx2 board-frame points to image pixels of an image `scale` times the calibrated size."""
        mapped = cv2.perspectiveTransform(np.asarray(board_points, np.float64).reshape(-1, 1, 2), self.matrix())
        return mapped.reshape(-1, 2) * scale

    def outline_in_image(self, region: int, scale: float = 1.0, shrink: float = 1.0) -> np.ndarray:
        return self.to_image(self.outline_in_board(region, shrink), scale)

    def to_json(self) -> dict:
        return {
            "homography": [round(v, 9) for v in self.homography],
            "image_size": list(self.image_size),
            "row_spacing": round(self.row_spacing, 4),
            "pit_radius": round(self.pit_radius, 4),
            "store_offset": round(self.store_offset, 4),
            "store_half_length": round(self.store_half_length, 4),
            "store_half_width": round(self.store_half_width, 4),
        }

    @classmethod
    def from_json(cls, obj: object) -> "BoardGeometry":
        try:
            homography = tuple(float(v) for v in obj["homography"])
            width, height = (int(v) for v in obj["image_size"])
            geometry = cls(
                homography=homography,
                image_size=(width, height),
                row_spacing=float(obj["row_spacing"]),
                pit_radius=float(obj["pit_radius"]),
                store_offset=float(obj["store_offset"]),
                store_half_length=float(obj["store_half_length"]),
                store_half_width=float(obj["store_half_width"]),
            )
        except (KeyError, TypeError, ValueError):
            raise ArbiterError("the Wari profile's board geometry is missing or malformed; calibrate again") from None
        if len(homography) != 9 or width <= 0 or height <= 0 or not all(np.isfinite(homography)):
            raise ArbiterError("the Wari profile's board geometry is malformed; calibrate again")
        sizes = (geometry.row_spacing, geometry.pit_radius, geometry.store_half_length, geometry.store_half_width)
        # A singular homography maps the board onto a line or a point: every reading would be noise.
        if np.linalg.matrix_rank(np.array(homography).reshape(3, 3)) < 3 or not all(v > 0 for v in sizes):
            raise ArbiterError("the Wari profile's board geometry is degenerate (the board maps to no area of "
                               "the photo); calibrate again")
        return geometry


@dataclass(frozen=True)
class RegionMask:
    """A region's pixels in a (downscaled) frame: a bounding box and a boolean mask inside it."""

    x0: int
    y0: int
    mask: np.ndarray

    def pixels(self, image: np.ndarray) -> np.ndarray:
        """The region's pixels of an image, one row per pixel."""
        height, width = self.mask.shape
        return image[self.y0 : self.y0 + height, self.x0 : self.x0 + width][self.mask]

    def shifted(self, dx: int, dy: int) -> "RegionMask":
        """The same region in an image cropped or padded by (dx, dy)."""
        return RegionMask(self.x0 + dx, self.y0 + dy, self.mask)

    @cached_property  # asked three times a frame for each of the cached regions
    def area(self) -> int:
        return int(self.mask.sum())


@lru_cache(maxsize=32)
def region_masks(geometry: BoardGeometry, frame_size: tuple[int, int], shrink: float = 1.0) -> tuple[RegionMask, ...]:
    """The 14 regions' masks in a frame of `frame_size` (width, height), clipped to the frame."""
    width, height = frame_size
    scale = width / geometry.image_size[0]
    masks = []
    for region in range(REGION_COUNT):
        outline = geometry.outline_in_image(region, scale, shrink)
        x0, y0 = np.floor(outline.min(axis=0)).astype(int)
        x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 1
        # A region wholly outside the frame gets an empty mask at the frame's edge.
        cx0, cy0 = min(max(x0, 0), width), min(max(y0, 0), height)
        cx1, cy1 = min(max(x1, cx0), width), min(max(y1, cy0), height)
        mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
        cv2.fillPoly(mask, [np.round(outline - (cx0, cy0)).astype(np.int32)], 1)
        masks.append(RegionMask(int(cx0), int(cy0), mask.astype(bool)))
    return tuple(masks)


@lru_cache(maxsize=512)  # asked for each pit the network reads, at every frame
def local_scale(geometry: BoardGeometry, region: int) -> float:
    """Image pixels per board unit around a region (perspective makes near pits bigger)."""
    cx, cy = geometry.centre_in_board(region)
    corners = geometry.to_image(np.array([[cx - 0.5, cy], [cx + 0.5, cy], [cx, cy - 0.5], [cx, cy + 0.5]]))
    along = np.linalg.norm(corners[1] - corners[0])
    across = np.linalg.norm(corners[3] - corners[2])
    return float(np.sqrt(along * across))
