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

MAX_SEEDS = 48
# Share of a region's area that seeds can cover in one layer (round seeds never tile it; the
# bowl's steep rim holds none). Fitted on the rendered bench sessions: 0.90 for nicker nuts,
# 0.76 for glass beads; the spread between the two is allowed for by _FILL_UNCERTAINTY.
FLOOR_FILL = 0.83
_FILL_UNCERTAINTY = 1.25  # a factor: unseen seeds may pack this much looser or tighter
# The capacity F is the model's weakest assumption: a deep or narrow bowl piles seeds well before
# its floor fills, and then hidden seeds and a saturated area both make a sure reading of a pile far
# too small. Each (share of F, weight) is a floor the bowl may have; the area and the spots are
# explained under each and the counts' probabilities summed. Measured against the true counts, the
# bowls' floors lie between about 0.6 F and F: the bench's two boards at F, the synthetic boards
# (device/synthetic_wari.py) at about 0.6 F (nicker session 3: 12 nuts show 9.3 seeds of area where
# F is 17), 0.75-0.8 F (nicker sessions 2, 4) and 0.55-0.7 F (glass). So the weight below F now
# covers that range, thinning out towards half of F (a deeper bowl than any seen).
# Smaller shares weigh little: on the bench (floors within _FILL_UNCERTAINTY of F) more weight on
# them reads piles of 6-7 one too high.
_FLOOR_DOUBT = ((1.0, 0.78), (0.8, 0.1), (0.7, 0.05), (0.6, 0.04), (0.5, 0.03))
# As a column (floor shares down, counts across), so that every floor is explained in one pass.
_FLOOR_SHARES = np.array([[share] for share, _ in _FLOOR_DOUBT])
_LOG_FLOOR_WEIGHTS = np.log([[weight] for _, weight in _FLOOR_DOUBT])
# The same floors with the seeds packed somewhat tighter (halfway to the packing doubt), for the
# hiding law where only seeds' tops are spotted: piles are lumpy (see `hidden_law`).
_LUMPY_FLOOR_SHARES = _FLOOR_SHARES * _FILL_UNCERTAINTY**-0.5
_SATURATION_SHARPNESS = 4.0
# Degrees of freedom of the Student-t measurement noise: heavy tails keep a lamp glint or an
# odd pile from ruling the true count out altogether.
_NOISE_DOF = 6.0
# Prior: any count up to a pit's start load and a little more is common; bigger piles get rarer
# (a pit holds 13+ seeds in a few percent of positions of a game), which keeps a full pit's
# distribution from spreading over every count the saturated area cannot tell apart.
_COMMON_PILE = 8
_PILE_DECAY = 4.0
# A spot count off by more than hiding and one slip explain: a hand's edge, a seed mid-roll.
_SPOT_OUTLIER = 0.003
_COUNTS = np.arange(MAX_SEEDS + 1, dtype=np.float64)
_SHOWN = _COUNTS[None, :] - _COUNTS[:, None]  # seeds showing, for each number hidden (down) and count (across)
_LOG_FACTORIAL = np.cumsum(np.log(np.maximum(_COUNTS, 1)))
# The lamp's glare on a bare pit floor takes seed-like colours: up to this many seeds' worth
# of area in an empty pit (0.9 on the bench, more under a warmer lamp).
_FLOOR_GLARE = 1.5
# Most pits show no glare: half the weight on none, the rest spread evenly up to _FLOOR_GLARE.
_GLARE_WEIGHTS = np.array([0.5, 0.1, 0.1, 0.1, 0.1, 0.1])[:, None, None]
_MIN_SPREAD = 0.12  # seeds; even a perfect calibration photo leaves this much pit-to-pit variation
_SPREAD_MARGIN = 1.3  # 12 pits give a rough spread estimate; widen rather than exclude the truth
# Share of the floor's capacity from which a region's seeds count as crowded: piled seeds' glints
# come closer together than seeds lying apart, and seeds lie half buried (see
# vision.wari_measure.SeedSpotter).
_CROWDED_FILL = 0.5
# Seeds that only the crowded count finds (glints closer than a seed apart, half-buried seeds):
# this many show that the seeds already pile, whatever the capacity says (a deep, narrow bowl
# piles them early). One alone may be a long seed's second highlight or its far end.
_PILE_EVIDENCE = 2
# A crowded count misses a seed now and then (its glint hidden, its half-buried patch too small) or
# counts one twice (a long seed's side taken for a buried one): its variance grows by this much
# per seed shown. Seeds lying apart only slip as often as in the calibration photo.
_CROWDED_MISCOUNT = 0.03
# Whether seeds lie apart or crowd is judged from the same uncertain spots, and the two counts
# differ exactly where that judgement is hard (a long seed's far end, a dark gap between seeds or a
# noisy highlight taken for one more seed; a touching seed's glint merged). On the bench, in piles
# of 5-7 where the counts differ, each count is right about as often. The count passed over keeps
# this weight, so that a wrong judgement costs a candidate at most about ln(1/0.03) = 3.5 instead
# of ruling the true count out.
_SWITCH_DOUBT = 0.03
# Where the seeds are judged to lie apart but the crowded count finds exactly one more, the two are
# right about equally often on the bench (S0: 18 apart, 12 crowded; S1 2 / 3; synthetic 7 / 10):
# a touching seed's glint merged in the seed-sized window, or a nut's far end or second highlight.
# There the crowded count keeps this weight, and the area decides between them. (Measured again
# on 2026-11-23 with newer spotters, pits of 4-9 favour the crowded count: S0 10 / 3, S1 7 / 1.
# Weighing the two alike gained a few pits on our renders but read S0's stores exactly 81.8 %
# instead of 95.5 %, so the weight stays.)
_ONE_MORE_DOUBT = 0.25
_MISCOUNT_NORMALISER = np.exp(  # per number of seeds shown, the sum of the law's weights over all errors
    -0.5 * np.arange(-MAX_SEEDS, MAX_SEEDS + 1)[:, None] ** 2 / (_CROWDED_MISCOUNT * np.arange(MAX_SEEDS + 1).clip(1))
).sum(axis=0)
# Wholly hidden seeds need a pile. Where both spotting windows agree (no glints closer than a seed,
# no half-buried patch: nothing shows the seeds pile), seeds well short of the floor's capacity lie
# side by side and hardly hide: below this share of the floor the hiding law's mean is scaled by
# (n / (share x floor))^_PILE_ONSET_POWER. Measured on S0's four bench rows (nicker nuts, F ~ 10),
# the spot count missed (net of over-counts) 0.3 % of the nuts at 0.6 F, 0.9 % at 0.7 F and 6.7 %
# at 0.8 F where the law says 3.1 / 5.3 / 8.3 %; S1's beads 1.0 % at 0.6 F and 3.0 % at 0.75 F
# (the law 3.1 / 6.6 %). Scaled, the law says 1.0 / 3.1 / 8.3 % at 0.6 / 0.7 / 0.8 F: still more
# than either board shows.
_PILE_ONSET = 0.8
_PILE_ONSET_POWER = 4.0
_KEPT_MASS = 0.997
_MIN_SHOWN = 0.003


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
        spread = max(float(np.std(measured)), _MIN_SPREAD)
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
        return counts / (1 + (counts / floor) ** _SATURATION_SHARPNESS) ** (1 / _SATURATION_SHARPNESS)

    def is_crowded(self, region: int, spots_apart: float, spots_crowded: float) -> bool:
        """Whether the crowded spot count fits the region: the seeds spotted as lying apart already
        cover much of the floor, where seeds press together and start to pile, or the crowded
        count finds seeds that lying apart cannot explain."""
        return (
            spots_apart >= _CROWDED_FILL * self.capacity[region] or spots_crowded - spots_apart >= _PILE_EVIDENCE
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
        log_posterior -= np.maximum(_COUNTS - _COMMON_PILE, 0) / _PILE_DECAY
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
            judged, passed_over, doubt = as_crowded, as_apart, _SWITCH_DOUBT
        else:
            judged, passed_over = as_apart, as_crowded
            doubt = _ONE_MORE_DOUBT if crowded - apart == 1 else _SWITCH_DOUBT
        return np.logaddexp(np.log1p(-doubt) + judged, np.log(doubt) + passed_over)

    def _area_log_likelihood(self, region: int, seed_pixels: float) -> np.ndarray:
        """How well `seed_pixels` fit each count 0..MAX_SEEDS (across) on each of the bowl's floors (down)."""
        visible = seed_pixels / self.seed_area[region]
        expected, glare, sigma = _area_law(self, region)
        z = (visible - expected - glare) / sigma
        density = (1 + z**2 / _NOISE_DOF) ** (-0.5 * (_NOISE_DOF + 1)) / sigma
        return np.log((_GLARE_WEIGHTS * density).sum(axis=0))

    def area_law(self, region: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each count 0..MAX_SEEDS (across) on each of the bowl's floors (down): the seeds' worth
        of area expected to show, the lamp's glare (one more axis first: each of the glares weighed
        by _GLARE_WEIGHTS) and the measurement's spread."""
        floor = _FLOOR_SHARES * self.capacity[region]
        # Placement noise grows with the seeds lying side by side, not with those hidden in a pile.
        side_by_side = np.clip(_COUNTS, 1.5, floor)
        placement = _SPREAD_MARGIN * self.spread * np.sqrt(side_by_side / 4)
        expected = self.expected_visible(region, _COUNTS, _FLOOR_SHARES)
        # How far that moves if the seeds pack looser or tighter than assumed: nothing while they
        # all lie side by side, a lot once they pile.
        looser = self.expected_visible(region, _COUNTS, _FLOOR_SHARES * _FILL_UNCERTAINTY)
        tighter = self.expected_visible(region, _COUNTS, _FLOOR_SHARES / _FILL_UNCERTAINTY)
        packing = (looser - tighter) / 2
        # The lamp's glare on a bare pit floor can pass for up to _FLOOR_GLARE seeds. Seeds gather
        # at the bowl's bottom where the glare usually is, so a few already hide most of it.
        bare_floor = np.clip(1 - expected / floor, 0, 1) ** 3
        glare = np.linspace(0, 1, 6)[:, None, None] * _FLOOR_GLARE * bare_floor
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
        """Spots show every seed but the hidden ones (`_hidden_law`), now and then one too few or
        too many (more often in a crowded pile); for each count 0..MAX_SEEDS (across) on each floor."""
        match = _spot_match(spots, slip, crowded)
        return np.log((_hidden_law(self, region, tuple(packing.ravel()), unpiled) * match).sum(axis=1) + _SPOT_OUTLIER)

    def hidden_law(self, region: int, packing: np.ndarray, unpiled: bool) -> np.ndarray:
        """Chance of each number of hidden seeds (down) for each count (across), on each floor.

        Hidden seeds follow a Poisson law whose mean is what the floor's capacity leaves hidden if
        the seeds pack `packing` times as loose as assumed: somewhat tighter (halfway to the packing
        doubt) where only seeds' tops are spotted, since piles are lumpy and hiding only ever
        lowers the count; as assumed where half-buried seeds are spotted too. `unpiled`: nothing
        shows the seeds pile, so below _PILE_ONSET of the floor hardly any seed hides.
        """
        hidden_mean = _COUNTS - self.expected_visible(region, _COUNTS, packing)
        if unpiled:
            onset = _PILE_ONSET * packing * self.capacity[region]
            hidden_mean = hidden_mean * np.minimum(1.0, _COUNTS / onset) ** _PILE_ONSET_POWER
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
def _hidden_law(model: CountModel, region: int, packing: tuple[float, ...], unpiled: bool) -> np.ndarray:
    # A profile's regions share a few packings and the law needs no spots: worked out once per
    # profile instead of at every frame, it saves about a third of the posteriors' time. One
    # profile needs 56 laws (14 regions, two packings, piled or not) of 94 KB each.
    law = model.hidden_law(region, np.array(packing)[:, None], unpiled)
    law.flags.writeable = False  # shared by every later call
    return law


@lru_cache(maxsize=64)
def _area_law(model: CountModel, region: int) -> tuple[np.ndarray, ...]:
    # Like the hiding law, the same at every frame: only the seed pixels change.
    law = model.area_law(region)
    for part in law:
        part.flags.writeable = False
    return law


@lru_cache(maxsize=128)
def _spot_match(spots: float, slip: float, crowded: bool) -> np.ndarray:
    """Chance of spotting `spots` seeds for each number of seeds hidden (down) and count (across):
    exactly the seeds that show, or one off by a slip; a crowded count's own error grows with the
    seeds shown. Worked out once: a frame's spot counts are a few small numbers, seen again and again."""
    exact = _miscount_probability(spots - _SHOWN, _SHOWN) if crowded else _SHOWN == spots
    match = (1 - slip) * exact + np.where(np.abs(_SHOWN - spots) == 1, slip / 2, 0.0)
    match.flags.writeable = False
    return match


def _miscount_probability(error: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Chance that a crowded count is `error` off when `shown` seeds show: a discrete normal law
    with variance `_CROWDED_MISCOUNT` per seed shown."""
    shown = np.clip(shown, 1, MAX_SEEDS)
    return np.exp(-0.5 * error**2 / (_CROWDED_MISCOUNT * shown)) / _MISCOUNT_NORMALISER[shown.astype(int)]


def plausible_counts(posterior: np.ndarray) -> dict[int, float]:
    """The few counts holding nearly all the probability, most likely first, renormalised."""
    order = np.argsort(posterior)[::-1]
    kept_mass = np.cumsum(posterior[order])
    kept = order[: int(np.searchsorted(kept_mass, _KEPT_MASS)) + 1]
    kept = [int(n) for n in kept if posterior[n] >= _MIN_SHOWN] or [int(order[0])]
    total = float(posterior[kept].sum())
    return {n: float(posterior[n]) / total for n in kept}


def _board_area(geometry: BoardGeometry, region: int) -> float:
    """A region's measured area in squared board units."""
    if region < PIT_COUNT:
        return float(np.pi * (PIT_SHRINK * geometry.pit_radius) ** 2)
    return float(np.pi * PIT_SHRINK**2 * geometry.store_half_length * geometry.store_half_width)
