"""From a region's seed pixels and spotted seeds to a probability for every seed count.

Seeds lie side by side until the pit floor fills, then pile and hide each other, so the visible
seeds (in area, and spotted one by one) grow like n at first and level off near the floor's
capacity F (in seeds): expected visible seeds = n / (1 + (n / F)^4)^(1/4). The area of one seed
in each region, and how much the measured area of 4 seeds varies between pits, are learned from
the calibration photo; F follows from the region's area and the seed area, but a bowl may be
deeper or narrower than that, so the count weighs a few smaller capacities too. Once a region is
crowded, its spot count includes half-buried seeds (glints only), so that only the wholly hidden
ones are left to the hiding law, and the count's own error grows with the seeds it shows.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engines.errors import ArbiterError
from vision.wari_board import PIT_COUNT, REGION_COUNT, BoardGeometry, local_scale
from vision.wari_measure import PIT_SHRINK
from vision.wari_params import (
    COMMON_PILE,
    CROWDED_FILL,
    CROWDED_MISCOUNT,
    FILL_UNCERTAINTY,
    FLOOR_DOUBT,
    FLOOR_FILL,
    FLOOR_GLARE,
    GLARE_WEIGHTS,
    KEPT_MASS,
    MIN_SHOWN,
    MIN_SPREAD,
    NOISE_DOF,
    ONE_MORE_DOUBT,
    PILE_DECAY,
    PILE_EVIDENCE,
    PILE_ONSET,
    PILE_ONSET_POWER,
    SATURATION_SHARPNESS,
    SPOT_OUTLIER,
    SPREAD_MARGIN,
    SWITCH_DOUBT,
)

MAX_SEEDS = 48
# As a column (floor shares down, counts across), so that every floor is explained in one pass.
_FLOOR_SHARES = np.array([[share] for share, _ in FLOOR_DOUBT])
_LOG_FLOOR_WEIGHTS = np.log([[weight] for _, weight in FLOOR_DOUBT])
# The same floors with the seeds packed somewhat tighter (halfway to the packing doubt), for the
# hiding law where only seeds' tops are spotted: piles are lumpy (see `hidden_law`).
_LUMPY_FLOOR_SHARES = _FLOOR_SHARES * FILL_UNCERTAINTY**-0.5
_COUNTS = np.arange(MAX_SEEDS + 1, dtype=np.float64)
_SHOWN = _COUNTS[None, :] - _COUNTS[:, None]  # seeds showing, for each number hidden (down) and count (across)
_LOG_FACTORIAL = np.cumsum(np.log(np.maximum(_COUNTS, 1)))
_GLARE_WEIGHTS = np.array(GLARE_WEIGHTS)[:, None, None]  # one glare level down, then floors, then counts
_MISCOUNT_NORMALISER = np.exp(  # per number of seeds shown, the sum of the law's weights over all errors
    -0.5 * np.arange(-MAX_SEEDS, MAX_SEEDS + 1)[:, None] ** 2 / (CROWDED_MISCOUNT * np.arange(MAX_SEEDS + 1).clip(1))
).sum(axis=0)


@dataclass(frozen=True)
class CountModel:
    """Per region: pixels of one seed and floor capacity; and the measurement spread at 4 seeds."""

    seed_area: tuple[float, ...]  # working-frame pixels per seed
    capacity: tuple[float, ...]  # seeds that fit side by side
    spread: float  # standard deviation of the measured seeds in a 4-seed pit

    @classmethod
    def learn(cls, geometry: BoardGeometry, seed_pixels: np.ndarray, frame_width: int, seeds_per_pit: int) -> "CountModel":
        """Learn from the measured seed pixels of a photo where every pit holds `seeds_per_pit`."""
        scale = frame_width / geometry.image_size[0]
        squared_scale = np.array([(local_scale(geometry, r) * scale) ** 2 for r in range(REGION_COUNT)])
        # One seed's area per squared board unit, the same everywhere; perspective only rescales it.
        unit = float(np.median(seed_pixels[:PIT_COUNT] / (seeds_per_pit * squared_scale[:PIT_COUNT])))
        if unit <= 0:
            raise ArbiterError("no seeds were measured in the calibration photo's pits")
        seed_area = unit * squared_scale
        measured = seed_pixels[:PIT_COUNT] / seed_area[:PIT_COUNT]
        spread = max(float(np.std(measured)), MIN_SPREAD)
        region_area = np.array([_board_area(geometry, r) for r in range(REGION_COUNT)]) * squared_scale
        capacity = FLOOR_FILL * region_area / seed_area
        return cls(tuple(map(float, seed_area)), tuple(map(float, capacity)), spread)

    def seed_diameter(self, geometry: BoardGeometry, frame_width: int) -> float:
        """One seed's diameter in board units (pit pitches), from its area in the pits of a
        `frame_width`-pixel working frame: perspective aside, the same in every pit."""
        scale = frame_width / geometry.image_size[0]
        areas = [self.seed_area[pit] / (local_scale(geometry, pit) * scale) ** 2 for pit in range(PIT_COUNT)]
        return 2 * float(np.sqrt(np.median(areas) / np.pi))

    def expected_visible(self, region: int, counts: np.ndarray, fill: float = 1.0) -> np.ndarray:
        """Seeds' worth of area expected to show when `counts` seeds lie in the region."""
        floor = fill * self.capacity[region]
        return counts / (1 + (counts / floor) ** SATURATION_SHARPNESS) ** (1 / SATURATION_SHARPNESS)

    def is_crowded(self, region: int, spots_apart: float, spots_crowded: float) -> bool:
        """Whether the crowded spot count fits the region: the seeds spotted as lying apart already
        cover much of the floor, where seeds press together and start to pile, or the crowded
        count finds seeds that lying apart cannot explain."""
        return (
            spots_apart >= CROWDED_FILL * self.capacity[region] or spots_crowded - spots_apart >= PILE_EVIDENCE
        )

    def posterior(
        self,
        region: int,
        seed_pixels: float,
        spots: tuple[float, float] | None = None,
        spot_slip: float = 0.0,
        finds_buried: bool = False,
    ) -> np.ndarray:
        """Probability of each count 0..MAX_SEEDS given the region's seed pixels and its spotted
        seeds, counted as lying apart and as crowded (if counted; `spot_slip` is the chance that a
        spot count is one off; `finds_buried`: the crowded count includes half-buried seeds)."""
        log_joint = _LOG_FLOOR_WEIGHTS + self._area_log_likelihood(region, seed_pixels)
        if spots is not None:
            log_joint = log_joint + self._spots_log_likelihood(region, spots, spot_slip, finds_buried)
        log_posterior = np.logaddexp.reduce(log_joint, axis=0)
        log_posterior -= np.maximum(_COUNTS - COMMON_PILE, 0) / PILE_DECAY
        weights = np.exp(log_posterior - log_posterior.max())
        return weights / weights.sum()

    def _spots_log_likelihood(self, region: int, spots: tuple[float, float], slip: float, finds_buried: bool) -> np.ndarray:
        """The spots counted as lying apart and as crowded, on each of the bowl's floors: mostly the
        count that `is_crowded` judges to fit, a little the other."""
        apart, crowded = spots
        # Both windows agreeing: no sign that the seeds pile, so little hides short of the floor.
        unpiled = apart == crowded
        as_apart = self._spot_log_likelihood(region, apart, slip, _LUMPY_FLOOR_SHARES, unpiled=unpiled)
        # Seeds found half buried leave only the wholly hidden ones to the hiding law: no need to
        # allow for lumps by assuming a tighter packing.
        packing = _FLOOR_SHARES if finds_buried else _LUMPY_FLOOR_SHARES
        as_crowded = self._spot_log_likelihood(region, crowded, slip, packing, crowded=True, unpiled=unpiled)
        if self.is_crowded(region, apart, crowded):
            judged, passed_over, doubt = as_crowded, as_apart, SWITCH_DOUBT
        else:
            judged, passed_over = as_apart, as_crowded
            doubt = ONE_MORE_DOUBT if crowded - apart == 1 else SWITCH_DOUBT
        return np.logaddexp(np.log1p(-doubt) + judged, np.log(doubt) + passed_over)

    def _area_log_likelihood(self, region: int, seed_pixels: float) -> np.ndarray:
        """How well `seed_pixels` fit each count 0..MAX_SEEDS (across) on each of the bowl's floors (down)."""
        visible = seed_pixels / self.seed_area[region]
        expected, glare, sigma = shared_area_law(self, region)
        z = (visible - expected - glare) / sigma
        density = (1 + z**2 / NOISE_DOF) ** (-0.5 * (NOISE_DOF + 1)) / sigma
        return np.log((_GLARE_WEIGHTS * density).sum(axis=0))

    def area_law(self, region: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each count 0..MAX_SEEDS (across) on each of the bowl's floors (down): the seeds' worth
        of area expected to show, the lamp's glare (one more axis first: each of the glares weighed
        by _GLARE_WEIGHTS) and the measurement's spread."""
        floor = _FLOOR_SHARES * self.capacity[region]
        # Placement noise grows with the seeds lying side by side, not with those hidden in a pile.
        side_by_side = np.clip(_COUNTS, 1.5, floor)
        placement = SPREAD_MARGIN * self.spread * np.sqrt(side_by_side / 4)
        expected = self.expected_visible(region, _COUNTS, _FLOOR_SHARES)
        # How far that moves if the seeds pack looser or tighter than assumed: nothing while they
        # all lie side by side, a lot once they pile.
        looser = self.expected_visible(region, _COUNTS, _FLOOR_SHARES * FILL_UNCERTAINTY)
        tighter = self.expected_visible(region, _COUNTS, _FLOOR_SHARES / FILL_UNCERTAINTY)
        packing = (looser - tighter) / 2
        # The lamp's glare on a bare pit floor can pass for up to FLOOR_GLARE seeds. Seeds gather
        # at the bowl's bottom where the glare usually is, so a few already hide most of it.
        bare_floor = np.clip(1 - expected / floor, 0, 1) ** 3
        glare = np.linspace(0, 1, 6)[:, None, None] * FLOOR_GLARE * bare_floor
        return expected, glare, np.hypot(placement, packing)

    def _spot_log_likelihood(
        self,
        region: int,
        spots: float,
        slip: float,
        packing: np.ndarray,
        crowded: bool = False,
        unpiled: bool = False,
    ) -> np.ndarray:
        """Spots show every seed but the hidden ones (`shared_hidden_law`), now and then one too few or
        too many (more often in a crowded pile); for each count 0..MAX_SEEDS (across) on each floor."""
        match = spot_match(spots, slip, crowded)
        return np.log((shared_hidden_law(self, region, tuple(packing.ravel()), unpiled) * match).sum(axis=1) + SPOT_OUTLIER)

    def hidden_law(self, region: int, packing: np.ndarray, unpiled: bool) -> np.ndarray:
        """Chance of each number of hidden seeds (down) for each count (across), on each floor.

        Hidden seeds follow a Poisson law whose mean is what the floor's capacity leaves hidden if
        the seeds pack `packing` times as loose as assumed: somewhat tighter (halfway to the packing
        doubt) where only seeds' tops are spotted, since piles are lumpy and hiding only ever
        lowers the count; as assumed where half-buried seeds are spotted too. `unpiled`: nothing
        shows the seeds pile, so below PILE_ONSET of the floor hardly any seed hides.
        """
        hidden_mean = _COUNTS - self.expected_visible(region, _COUNTS, packing)
        if unpiled:
            onset = PILE_ONSET * packing * self.capacity[region]
            hidden_mean = hidden_mean * np.minimum(1.0, _COUNTS / onset) ** PILE_ONSET_POWER
        # Axes: packing (one per floor), hidden seeds, count.
        hidden = _COUNTS[:, None]
        hidden_mean = hidden_mean[:, None, :]
        return np.exp(hidden * np.log(np.maximum(hidden_mean, 1e-9)) - hidden_mean - _LOG_FACTORIAL[:, None])

    def to_json(self) -> dict:
        return {
            "seed_area_px": [round(a, 2) for a in self.seed_area],
            "capacity": [round(c, 2) for c in self.capacity],
            "spread": round(self.spread, 4),
        }

    @classmethod
    def from_json(cls, obj: object) -> "CountModel":
        try:
            seed_area = tuple(float(a) for a in obj["seed_area_px"])
            capacity = tuple(float(c) for c in obj["capacity"])
            spread = float(obj["spread"])
        except (KeyError, TypeError, ValueError):
            raise ArbiterError("the Wari profile's seed counts are missing or malformed; calibrate again") from None
        if len(seed_area) != REGION_COUNT or len(capacity) != REGION_COUNT or min(seed_area + capacity) <= 0 or spread <= 0:
            raise ArbiterError("the Wari profile's seed counts are malformed; calibrate again")
        return cls(seed_area, capacity, spread)


@lru_cache(maxsize=64)
def shared_hidden_law(model: CountModel, region: int, packing: tuple[float, ...], unpiled: bool) -> np.ndarray:
    # A profile's regions share a few packings and the law needs no spots: worked out once per
    # profile instead of at every frame, it saves about a third of the posteriors' time. One
    # profile needs 56 laws (14 regions, two packings, piled or not) of 94 KB each.
    law = model.hidden_law(region, np.array(packing)[:, None], unpiled)
    law.flags.writeable = False  # shared by every later call
    return law


@lru_cache(maxsize=64)
def shared_area_law(model: CountModel, region: int) -> tuple[np.ndarray, ...]:
    # Like the hiding law, the same at every frame: only the seed pixels change.
    law = model.area_law(region)
    for part in law:
        part.flags.writeable = False
    return law


@lru_cache(maxsize=128)
def spot_match(spots: float, slip: float, crowded: bool) -> np.ndarray:
    """Chance of spotting `spots` seeds for each number of seeds hidden (down) and count (across):
    exactly the seeds that show, or one off by a slip; a crowded count's own error grows with the
    seeds shown. Worked out once: a frame's spot counts are a few small numbers, seen again and again."""
    exact = miscount_probability(spots - _SHOWN, _SHOWN) if crowded else _SHOWN == spots
    match = (1 - slip) * exact + np.where(np.abs(_SHOWN - spots) == 1, slip / 2, 0.0)
    match.flags.writeable = False
    return match


def miscount_probability(error: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Chance that a crowded count is `error` off when `shown` seeds show: a discrete normal law
    with variance `CROWDED_MISCOUNT` per seed shown."""
    shown = np.clip(shown, 1, MAX_SEEDS)
    return np.exp(-0.5 * error**2 / (CROWDED_MISCOUNT * shown)) / _MISCOUNT_NORMALISER[shown.astype(int)]


def plausible_counts(posterior: np.ndarray) -> dict[int, float]:
    """The few counts holding nearly all the probability, most likely first, renormalised."""
    order = np.argsort(posterior)[::-1]
    kept_mass = np.cumsum(posterior[order])
    kept = order[: int(np.searchsorted(kept_mass, KEPT_MASS)) + 1]
    kept = [int(n) for n in kept if posterior[n] >= MIN_SHOWN] or [int(order[0])]
    total = float(posterior[kept].sum())
    return {n: float(posterior[n]) / total for n in kept}


def _board_area(geometry: BoardGeometry, region: int) -> float:
    """A region's measured area in squared board units."""
    if region < PIT_COUNT:
        return float(np.pi * (PIT_SHRINK * geometry.pit_radius) ** 2)
    return float(np.pi * PIT_SHRINK**2 * geometry.store_half_length * geometry.store_half_width)
