"""What each pixel of a Nanku frame says about the five classes a drawing can put there.

A class is a colour (the calibration photo's) seen brighter or darker within a range: the table
under the lamp or in a cube's shadow, a cube's top, its sides turned from the lamp. A pixel's cost
for a class is its squared distance (sRGB) to the nearest colour of that range, over twice the
spread squared, capped: the negative log-likelihood of a robust Gaussian. `Costs` holds the five
cost maps of one frame and scores drawings against them.

The calibration photo's colours hold for any picture of the table, but how bright a face looks
does not: a glossy black top under the lamp, a white side turned from it. So each picture's
faces are measured in that picture (`measured`): where the structure known from the game is drawn
at its pose, each class's colour and brightness range are those of the pixels the drawing gives
it, and a new piece's faces are judged against the old pieces' faces of the same picture.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import _nanku_costs
from vision.nanku_camera import BLACK_SIDE, BLACK_TOP, CLASSES, TABLE, WHITE_SIDE, WHITE_TOP
from vision.nanku_params import GUESSED_RANGE, GUESSED_SPREAD, LIGHT_REACH, LIGHT_SAMPLES, LAMP_SPREAD, MEASURED_QUANTILES, MEASURED_SHARE, PATCH_SHARE, PIXEL_COST_CAP, SIDE_BRIGHTEST, SIDE_DARKEST, SPREAD_FLOOR, TABLE_DARKEST

CLASS_NAMES = {TABLE: "table", WHITE_TOP: "white_top", WHITE_SIDE: "white_side",
               BLACK_TOP: "black_top", BLACK_SIDE: "black_side"}


@dataclass(frozen=True)
class Appearance:
    """The five classes' colours (BGR, 0-255, as the calibration photo shows them) and spread."""

    colours: dict
    spread: float
    # Brightness ranges measured in one picture (`measured`), by class; the others as `ranges` says.
    measured_ranges: dict | None = None
    # Classes whose colour no picture has shown yet (the white under a standing black): only
    # their brightness is guessed, so any hue within GUESSED_SPREAD of it and any brightness within
    # GUESSED_RANGE fit them.
    guessed: frozenset = frozenset()

    def ranges(self) -> dict:
        """Each class's brightness range, as shares of its colour. A black face is drawn no brighter
        than its lamp's spread allows: drawn as bright as the table (glossy black tops can look
        that bright), it matches a white side in the shade, both near grey, and pieces are read
        where white sides are (a placement beside the first piece read on its other side)."""
        lamp_low, lamp_high = 1.0 - LAMP_SPREAD, 1.0 + LAMP_SPREAD
        return {**self._drawn_ranges(lamp_low, lamp_high), **(self.measured_ranges or {})}

    @staticmethod
    def _drawn_ranges(lamp_low: float, lamp_high: float) -> dict:
        return {
            TABLE: (TABLE_DARKEST, lamp_high),
            WHITE_TOP: (lamp_low, lamp_high),
            WHITE_SIDE: (SIDE_DARKEST, SIDE_BRIGHTEST),
            BLACK_TOP: (lamp_low, lamp_high),
            BLACK_SIDE: (SIDE_DARKEST, lamp_high),
        }

    def to_json(self) -> dict:
        out = {"colours_bgr": {CLASS_NAMES[c]: [round(float(v), 1) for v in colour] for c, colour in self.colours.items()},
               "spread": round(self.spread, 2)}
        if self.guessed:
            out["guessed"] = sorted(CLASS_NAMES[c] for c in self.guessed)
        return out

    @classmethod
    def from_json(cls, obj: dict) -> Appearance:
        names = {name: c for c, name in CLASS_NAMES.items()}
        colours = {names[name]: np.array(value, dtype=np.float32) for name, value in obj["colours_bgr"].items()}
        if set(colours) != set(CLASS_NAMES):
            raise KeyError("colours_bgr must name " + ", ".join(CLASS_NAMES.values()))
        return cls(colours, float(obj["spread"]), guessed=frozenset(names[name] for name in obj.get("guessed", ())))


def colour_cost(pixels: np.ndarray, colour: np.ndarray, low: float, high: float, spread: float) -> np.ndarray:
    """Each pixel's cost (nats) for `colour` seen at a brightness from `low` to `high` times its own.
    The brightness share by numpy, the rest in one compiled pass over the pixels that takes numpy's
    float32 steps in its order (`colour_cost_plain`): five passes over a frame's pixels, a class."""
    spread = max(spread, SPREAD_FLOOR)
    if pixels.dtype != np.float32 or any(type(v) is not float for v in (low, high, spread)):
        # A numpy float64 bound makes numpy compute in float64: the compiled pass is float32's.
        return colour_cost_plain(pixels, colour, low, high, spread)
    colour = np.maximum(np.asarray(colour, np.float32), 1.0)
    pixels = np.ascontiguousarray(pixels)
    share = np.ascontiguousarray(pixels @ colour / float(colour @ colour), np.float32)
    out = np.empty(pixels.shape[:-1], np.float32)
    _nanku_costs.shade_costs(pixels, share, share.size, colour, np.float32(low), np.float32(high),
                             np.float32(2.0 * spread * spread), np.float32(PIXEL_COST_CAP), out)
    return out


def colour_cost_plain(pixels: np.ndarray, colour: np.ndarray, low: float, high: float, spread: float) -> np.ndarray:
    """`colour_cost` by numpy alone."""
    colour = np.maximum(np.asarray(colour, np.float32), 1.0)
    share = np.clip(pixels @ colour / float(colour @ colour), low, high)
    miss = pixels - share[..., None] * colour
    spread = max(spread, SPREAD_FLOOR)
    return np.minimum((miss * miss).sum(axis=-1) / (2.0 * spread * spread), PIXEL_COST_CAP)


def local_light(image_bgr: np.ndarray, table: np.ndarray, cube_px: float) -> np.ndarray:
    """(H, W) how bright the lamp makes each place, as a share of the calibration photo's table.

    Measured on the pixels that look like table (its colour at 0.7-1.3 of its brightness) and
    spread smoothly under the cubes (normalised convolution over LIGHT_REACH cubes): a lamp's
    fall-off is smooth, and a face under it is lit in the same proportion as the table beside it.
    The convolution runs on the frame reduced to LIGHT_SAMPLES pixels a blur's sigma (sums over
    blocks, `reduce_frame`) and its light is enlarged back (bilinear): the blur leaves nothing
    that the reduced frame's samples could not carry.
    """
    pixels = image_bgr.astype(np.float32)
    table = np.maximum(np.asarray(table, np.float32), 1.0)
    share = pixels @ table / float(table @ table)
    # The distance to the table's colour channel by channel: plain arrays, not a norm over an axis.
    miss_squared = sum(np.square(channel - share * value) for channel, value in zip(cv2.split(pixels), table))
    near = 0.08 * float(np.linalg.norm(table)) + SPREAD_FLOOR
    looks_like_table = (share > 0.7) & (share < 1.3) & (miss_squared < near * near)
    weight = looks_like_table.astype(np.float32)
    sigma = max(1.0, LIGHT_REACH * cube_px)
    step = max(1.0, sigma / LIGHT_SAMPLES)
    height, width = weight.shape
    reduced = reduce_frame(np.dstack([share * weight, weight]), 1.0 / step)
    sigma_reduced = sigma * reduced.shape[1] / width
    spread_share = cv2.GaussianBlur(reduced[..., 0], (0, 0), sigma_reduced)
    spread_weight = cv2.GaussianBlur(reduced[..., 1], (0, 0), sigma_reduced)
    light = np.where(spread_weight > 1e-3, spread_share / np.maximum(spread_weight, 1e-3), 1.0)
    light = np.clip(light, 0.5, 1.5).astype(np.float32)
    if light.shape != (height, width):
        light = cv2.resize(light, (width, height), interpolation=cv2.INTER_LINEAR)
    return light


def lit_pixels(image_bgr: np.ndarray, appearance: Appearance, cube_px: float) -> np.ndarray:
    """(H, W, 3) float32: the frame with the lamp's local light divided out."""
    light = local_light(image_bgr, appearance.colours[TABLE], cube_px)
    return image_bgr.astype(np.float32) / light[..., None]


def class_costs(pixels: np.ndarray, appearance: Appearance, known: tuple | None = None) -> np.ndarray:
    """(5, H, W) float32: each pixel's cost (nats) for each class, of pixels the lamp's local light
    is divided out of (`lit_pixels`). `known`, (maps, appearance) of the same pixels, gives the
    maps of the classes whose colour and range are unchanged (the table, and every face a
    picture's structure does not show enough of to measure)."""
    costs = np.empty((CLASSES,) + pixels.shape[:2], np.float32)
    known_maps, known_look = known if known is not None else (None, None)
    known_ranges = known_look.ranges() if known_look is not None else {}
    for cls, (low, high) in appearance.ranges().items():
        if (known_look is not None and known_ranges.get(cls) == (low, high) and known_look.spread == appearance.spread
                and (cls in known_look.guessed) == (cls in appearance.guessed)
                and np.array_equal(known_look.colours[cls], appearance.colours[cls])):
            costs[cls] = known_maps[cls]
            continue
        spread = appearance.spread
        if cls in appearance.guessed:
            low, high, spread = low * GUESSED_RANGE[0], high * GUESSED_RANGE[1], max(spread, GUESSED_SPREAD)
        costs[cls] = colour_cost(pixels, appearance.colours[cls], low, high, spread)
    return costs


def measured(appearance: Appearance, pixels: np.ndarray, drawing: np.ndarray, cube_px: float) -> Appearance:
    """The faces' colours and brightness ranges as this picture shows them where `drawing` (the
    structure known from the game, at its pose) puts each face class: the median colour and the
    spread of brightness around it (MEASURED_QUANTILES, never narrower than the lamp's spread) of
    the class's inner pixels (a pixel off its edges: a pose a little off mixes in neighbours). A
    class the structure shows less than MEASURED_SHARE of a cube of keeps the calibration's."""
    colours, ranges = dict(appearance.colours), {}
    least = max(1.0, MEASURED_SHARE * cube_px * cube_px)
    kernel = np.ones((3, 3), np.uint8)
    for cls in (WHITE_TOP, WHITE_SIDE, BLACK_TOP, BLACK_SIDE):
        inner = cv2.erode((drawing == cls).astype(np.uint8), kernel).astype(bool)
        if inner.sum() < least:
            continue
        seen = pixels[inner]
        colour = np.maximum(np.median(seen, axis=0), 1.0)
        low, high = np.quantile(seen @ colour / float(colour @ colour), MEASURED_QUANTILES)
        colours[cls] = colour
        ranges[cls] = (float(min(low, 1.0 - LAMP_SPREAD)), float(max(high, 1.0 + LAMP_SPREAD)))
    return Appearance(colours, appearance.spread, {**(appearance.measured_ranges or {}), **ranges},
                      appearance.guessed - set(ranges))


class Costs:
    """A frame's cost maps at the working scale, and the scoring of class drawings against them.
    `pixels`, where kept, are the frame's (lamp divided out) that the maps were computed from."""

    def __init__(self, costs: np.ndarray, cube_px: float, pixels: np.ndarray | None = None):
        self.pixels = pixels
        self.drawn: dict = {}  # costs of whole drawings by structure, pose and camera (`Scene.cost`)
        self.per_cube_px = cube_px
        # The maps stored pixel by pixel, as the compiled gather reads them (a pixel's five costs
        # together); `maps` is the same memory seen class by class, so a frame keeps one copy.
        self._by_pixel = np.ascontiguousarray(costs.transpose(1, 2, 0), np.float32)
        self.maps = self._by_pixel.transpose(2, 0, 1)
        self.shape = costs.shape[1:]
        # One independent observation per patch of PATCH_SHARE cube across.
        self.per_observation = max(1.0, (PATCH_SHARE * cube_px) ** 2)
        self.least = costs.min(axis=0)
        table = costs[TABLE].astype(np.float64)
        self._table_integral = np.pad(table.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
        self.table_total = float(table.sum()) / self.per_observation

    def table_cost(self, left: int, top: int, right: int, bottom: int) -> float:
        """The cost of a window drawn as bare table."""
        s = self._table_integral
        return float(s[bottom, right] - s[top, right] - s[bottom, left] + s[top, left]) / self.per_observation

    def cost(self, classes: np.ndarray, offset: tuple[int, int] = (0, 0)) -> float:
        """Total cost (in observations' nats) of a drawing of a window at `offset` (x, y): the
        costs gathered and summed in one compiled pass, as numpy sums them (float32, pairwise)."""
        x, y = offset
        h, w = classes.shape
        height, width = self.shape
        total = _nanku_costs.picked_total(self._by_pixel, CLASSES, height, width,
                                          np.ascontiguousarray(classes, np.uint8), x, y, w, h)
        return total / self.per_observation

    def paid(self, classes: np.ndarray, offset: tuple[int, int] = (0, 0)) -> np.ndarray:
        """(h, w) float32: what each pixel of a drawn window at `offset` (x, y) costs for its class."""
        x, y = offset
        h, w = classes.shape
        height, width = self.shape
        picked = np.empty((h, w), np.float32)
        _nanku_costs.pick(self._by_pixel, CLASSES, height, width, np.ascontiguousarray(classes, np.uint8), x, y, w, h,
                          picked)
        return picked

    def total(self, paid: np.ndarray, window: tuple[int, int, int, int] | None = None) -> float:
        """The cost of `paid` pixels (`paid`), in observations' nats, or of its window (left, top,
        right, bottom): summed as a window of its own, so a window costs the same however it was cut."""
        if window is None:
            return float(np.ascontiguousarray(paid).sum()) / self.per_observation
        left, top, right, bottom = window
        rows, width = paid.shape
        return _nanku_costs.window_total(paid, rows, width, left, top, right - left, bottom - top) / self.per_observation

    def cost_plain(self, classes: np.ndarray, offset: tuple[int, int] = (0, 0)) -> float:
        """`cost` by numpy alone: the window's flat indices by class and pixel, gathered."""
        x, y = offset
        h, w = classes.shape
        height, width = self.shape
        where = (np.arange(y, y + h)[:, None] * width + np.arange(x, x + w)[None, :])
        picked = self.maps.reshape(-1).take(classes.astype(np.intp) * (height * width) + where)
        return float(picked.sum()) / self.per_observation

    def unexplained(self, classes: np.ndarray) -> np.ndarray:
        """Per pixel, how much a drawing's class costs above the pixel's best class."""
        return self.paid(classes) - self.least


def reduce_frame(image_bgr: np.ndarray, factor: float) -> np.ndarray:
    """The frame at the working scale, averaged (not sampled) so that noise does not alias."""
    if factor >= 1.0:
        return image_bgr
    height, width = image_bgr.shape[:2]
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    return cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)
