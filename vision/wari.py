"""Recognising a Wari position: frame + calibration profile -> seed counts with their uncertainty.

Each pit and store is measured (`vision.wari_measure`: seed area and seeds spotted one by one),
and the measurements turned into a probability for every count (`vision.wari_count`). The observation keeps those distributions so
the tracker can weigh candidate positions (`log_likelihood`) instead of trusting one reading.
Where the game's position and the hand-made cues disagree about a pit, the judge asks the pile
counter network to look at it too (`looked_again`): a second witness, trained on broad renders,
where a glare on an empty bowl or a misread pile would otherwise decide a verdict.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

import cv2
import numpy as np

from engines.errors import ArbiterError
from vision.parsed_profiles import ParsedProfiles
from vision.wari_board import PIT_COUNT, REGION_COUNT, BoardGeometry
from vision.wari_count import CountModel, plausible_counts
from vision.wari_measure import RegionMeasures, SeedSpotter, board_top_colours, measure_regions, spotters_from_json
from vision.wari_pile_counter import count_probabilities, looks_again, needs_network, pit_crops, with_network
from vision.wari_seeds import WORKING_WIDTH, SeedColourModel, working_frame
from vision.wari_params import (
    BOARD_TOP_TOLERANCE,
    DOUBTFUL_FROM,
    HIDDEN_PILE_SHARES,
    HIDDEN_PILE_SPAN,
    MISSED_SPREAD,
    PARSED_PROFILES_KEPT,
    PROBABILITY_FLOOR,
    QUARTER_TURNS,
    STORE_WEIGHT,
)

_REGION_WEIGHTS = (1.0,) * PIT_COUNT + (STORE_WEIGHT,) * (REGION_COUNT - PIT_COUNT)
# Counts a region's scores are worked out for in advance: every count a 48-seed set can put in it.
_TABLED_COUNTS = 49


@dataclass(frozen=True)
class WariProfile:
    """The parts of a Wari calibration profile recognition needs, checked once."""

    geometry: BoardGeometry
    colours: SeedColourModel
    counts: CountModel
    spotters: tuple[SeedSpotter, ...]  # none: counting by seed area alone
    board_top: np.ndarray  # Lab colours of the board top between the pits (NaN: not seen)
    start_pits_spotted: int  # the start photo's pits in which the spotters found all 4 seeds

    @property
    def cues_miss_seeds(self) -> bool:
        """Whether both cues lost seeds in the start photo: the spotters missed one in some pit, and
        the seed area of its pits spreads by more than MISSED_SPREAD seeds. Seeds on such a board
        can hide from the cues even where they lie apart (a red bead on red wood)."""
        return self.start_pits_spotted < PIT_COUNT and self.counts.spread > MISSED_SPREAD

    @property
    def seed_diameter(self) -> float:
        """One seed's diameter in board units (pit pitches), as the start photo showed it."""
        return self.counts.seed_diameter(self.geometry, WORKING_WIDTH)

    @classmethod
    def from_json(cls, profile: object) -> "WariProfile":
        if not isinstance(profile, dict) or profile.get("game") != "wari":
            game = profile.get("game") if isinstance(profile, dict) else None
            raise ArbiterError(f"a Wari recogniser needs a Wari profile, not one for game {game!r}")
        return cls(
            BoardGeometry.from_json(profile.get("board")),
            SeedColourModel.from_json(profile.get("seed_colours")),
            CountModel.from_json(profile.get("counts")),
            spotters_from_json(profile.get("spotters")),
            _board_top_from_json(profile.get("board_top_lab")),
            _start_pits_spotted_from_json(profile.get("start_pits_spotted", PIT_COUNT)),
        )


@dataclass(frozen=True)
class WariObservation:
    """What one frame shows: per pit and store, the plausible counts with their probabilities."""

    geometry: BoardGeometry
    regions: tuple[dict[int, float], ...]  # 12 pits in contract order, then South's and North's store
    confidence: float
    # (seeds, regions counted) -> `_best_with_seeds`: a verdict asks for the same one several times.
    _best: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    # Per region, the score of each count below _TABLED_COUNTS (`_region_scores`), once asked for.
    _scores: list = field(default_factory=list, init=False, repr=False, compare=False)
    # pits -> their counts weighed with the network's reading, which may add counts (`recognize`);
    # None where nothing can look again (an observation built by hand).
    second_look: Callable[[list[int]], dict[int, dict[int, float]]] | None = field(
        default=None, repr=False, compare=False)
    looked_at: frozenset = frozenset()  # pits `looked_again` has read

    @property
    def pits(self) -> list[int]:
        return [_most_likely(d) for d in self.regions[:PIT_COUNT]]

    @property
    def stores(self) -> list[int]:
        return [_most_likely(d) for d in self.regions[PIT_COUNT:]]

    def to_json(self) -> dict:
        def rounded(distribution: dict[int, float]) -> dict[str, float]:
            return {str(n): round(p, 4) for n, p in distribution.items()}

        return {
            "state": {"game": "wari", "pits": self.pits, "stores": self.stores},
            "confidence": round(self.confidence, 4),
            "evidence": {
                "pits": [rounded(d) for d in self.regions[:PIT_COUNT]],
                "stores": [rounded(d) for d in self.regions[PIT_COUNT:]],
            },
        }

    def log_likelihood(self, state_json: dict) -> float:
        """Sum of each region's log probability of the candidate's count (floored; stores weigh less)."""
        counts = _region_counts(state_json)
        return sum(row[n] if n < _TABLED_COUNTS else _log_probability(d, n, w)
                   for row, d, n, w in zip(self._region_scores(), self.regions, counts, _REGION_WEIGHTS))

    def _region_scores(self) -> list[list[float]]:
        """Each region's weighed score of every count below _TABLED_COUNTS: a judge weighs a few
        hundred tables against one picture, and the best reading holding the seeds all counts."""
        if not self._scores:
            self._scores.extend(_score_row(d, w) for d, w in zip(self.regions, _REGION_WEIGHTS))
        return self._scores

    def best_log_likelihood(self, following: dict | None = None) -> float:
        """The log-likelihood of the most likely position the frame shows; given `following`, a
        position of the game being played, of the most likely one holding as many seeds in pits
        and stores: sowing and capturing move seeds, never add or remove them. A pile whose
        reading misses hidden seeds then no longer sets the bar that candidates must reach."""
        if following is None:
            return self.log_likelihood(self.to_json()["state"])
        return self._best_with_seeds(following)[0]

    def best_reading(self, following: dict | None = None) -> dict:
        """The most likely position the frame shows (holding as many seeds as `following`, when
        given), as a state: what a verdict compares the game's position with, pit by pit."""
        if following is None:
            return self.to_json()["state"]
        counts = self._best_with_seeds(following)[1]
        return {"game": "wari", "pits": counts[:PIT_COUNT], "stores": counts[PIT_COUNT:] or self.stores}

    def looked_again(self, candidates: list[dict]) -> "WariObservation":
        """The observation with the pits where a candidate (a position the game could be in)
        differs from the reading read again by the pile counter (at every quarter turn where one
        look leaves doubt), its counts allowed to add to the cues' (`with_network`); itself where
        there is none to read. The judge asks this where one pit could decide its verdict: the cues
        can be surely wrong where a lamp's glare lies on an empty bowl, and the network, trained on
        broad renders, reads such pits right (docs/vision-wari.md, "A second look")."""
        read = self.pits
        differ = sorted({pit for candidate in candidates for pit, n in enumerate(_region_counts(candidate)[:PIT_COUNT])
                         if n != read[pit] and pit not in self.looked_at})
        if self.second_look is None or not differ:
            return self
        regions = list(self.regions)
        for pit, counts in self.second_look(differ).items():
            regions[pit] = counts
        looked = replace(self, regions=tuple(regions), looked_at=self.looked_at | frozenset(differ))
        if self._scores:  # the regions not read again keep their scores
            looked._scores.extend(_score_row(regions[region], weight) if region in differ else self._scores[region]
                                  for region, weight in enumerate(_REGION_WEIGHTS))
        return looked

    def doubtful(self, candidate: dict, following: dict) -> str:
        """Whether the candidate differs from the best reading holding `following`'s seeds only in
        pits read as piles (DOUBTFUL_FROM seeds or more) and in stores: piles hide seeds, stores
        pile higher still (they weigh STORE_WEIGHT), and a count off there is no evidence of a slip
        the camera can stand by. A pit read with fewer seeds is counted well, whatever the
        candidate holds there (a pile taken wrongly leaves a pit read as empty); and every slip of
        sowing or capturing changes a pit. Returns "piles" (some pit differs), "stores" (only the
        stores differ: no slip can hide there) or "" (not doubtful)."""
        read = _region_counts(self.best_reading(following))
        wanted = _region_counts(candidate)
        differ = [region for region, (n, m) in enumerate(zip(read, wanted)) if n != m]
        if not all(region >= PIT_COUNT or read[region] >= DOUBTFUL_FROM for region in differ):
            return ""
        return "piles" if any(region < PIT_COUNT for region in differ) else "stores"

    def _best_with_seeds(self, following: dict) -> tuple[float, list[int]]:
        """(score, counts) of the most likely reading holding as many seeds as `following`."""
        counts = _region_counts(following)
        key = (sum(counts), len(counts))
        if key not in self._best:
            self._best[key] = self._search_best(*key)
        score, chosen = self._best[key]
        return score, list(chosen)

    def _search_best(self, seeds: int, regions: int) -> tuple[float, list[int]]:
        """(score, counts) of the most likely reading of the first `regions` regions holding `seeds`."""
        # best[t]: the best score of the regions so far holding t seeds between them; choice[r][t]
        # the count region r holds in it.
        best = np.full(seeds + 1, -np.inf)
        best[0] = 0.0
        shift = np.arange(seeds + 1)[:, None] - np.arange(seeds + 1)[None, :]  # t - n
        choices = []
        # The regions the position counts: the 12 pits, and the stores unless it leaves them out.
        for row, distribution, weight in zip(self._region_scores(), self.regions[:regions], _REGION_WEIGHTS):
            scores = np.array(row[:seeds + 1] if seeds < _TABLED_COUNTS
                              else [_log_probability(distribution, n, weight) for n in range(seeds + 1)])
            sums = np.where(shift >= 0, best[np.clip(shift, 0, None)] + scores[None, :], -np.inf)
            choices.append(sums.argmax(axis=1))
            best = sums.max(axis=1)
        chosen, left = [], seeds
        for choice in reversed(choices):
            chosen.append(int(choice[left]))
            left -= chosen[-1]
        return float(best[seeds]), chosen[::-1]


# A camera's frames all come with one profile: parsed once (its seed colours alone are two lists
# of 4,096 numbers).
_parsed_profile = ParsedProfiles(WariProfile.from_json, PARSED_PROFILES_KEPT)


def recognize(image_bgr: np.ndarray, profile: dict) -> WariObservation:
    """Read the seed counts of every pit and store from a frame."""
    calibrated = _parsed_profile(profile)
    image = colour_image_for(image_bgr, calibrated.geometry)
    frame = working_frame(image)
    measures, posteriors = region_posteriors(calibrated, frame)
    plausible = [plausible_counts(p) for p in posteriors]
    regions = list(plausible)
    reader = _PitReader(image, calibrated, plausible)
    regions[:PIT_COUNT] = _weighed_by_network(reader, posteriors)
    # A hand or a shadow brings colours calibration never saw; a region cut off by the frame edge cannot be read.
    seen = (1 - measures.unknown_share[:PIT_COUNT]) * measures.visible_share[:PIT_COUNT]
    sureness = np.array([max(region.values()) for region in regions[:PIT_COUNT]])
    board_match = _board_top_match(frame, calibrated)
    confidence = float(np.clip(np.mean(sureness) * np.min(seen) ** 2 * board_match**2, 0.0, 1.0))
    return WariObservation(calibrated.geometry, tuple(regions), confidence,
                           second_look=reader.second_look)


def _weighed_by_network(reader: "_PitReader", posteriors: list[np.ndarray]) -> list[dict[int, float]]:
    """The pits' plausible counts weighed with the pile counter's reading of the pits that need it
    (of every pit, and adding counts, where the cues miss seeds)."""
    cues_miss_seeds = reader.calibrated.cues_miss_seeds
    asked = [pit for pit, p in enumerate(posteriors[:PIT_COUNT]) if needs_network(p, cues_miss_seeds)]
    weighed = list(reader.plausible[:PIT_COUNT])
    for pit, counts in reader.counts(asked, cues_miss_seeds).items():
        weighed[pit] = counts
    return weighed


class _PitReader:
    """The pile counter's readings of one frame's pits, kept for the second look: a pit read when
    the frame was recognised is not read again."""

    def __init__(self, image: np.ndarray, calibrated: WariProfile, plausible: list[dict[int, float]]):
        self.image, self.calibrated, self.plausible = image, calibrated, plausible
        self._crops: dict[int, np.ndarray] = {}
        self._readings: dict[int, tuple[np.ndarray, bool]] = {}  # pit -> (probabilities, read at every turn)

    def counts(self, pits: list[int], adds: bool) -> dict[int, dict[int, float]]:
        """The given pits' plausible counts (from the cues) weighed with the network's reading
        (`with_network`, adding the counts it finds likely if it `adds`), at one quarter turn, and
        at every one of QUARTER_TURNS for those that look again."""
        unread = [pit for pit in pits if pit not in self._readings]
        if unread:
            crops = pit_crops(self.image, self.calibrated.geometry, self.calibrated.seed_diameter, unread)
            self._crops.update(zip(unread, crops))
            self._readings.update((pit, (reading, False))
                                  for pit, reading in zip(unread, count_probabilities(crops, QUARTER_TURNS[:1])))
        weighed = {pit: with_network(self.plausible[pit], self._readings[pit][0], adds=adds) for pit in pits}
        again = [pit for pit in pits if not self._readings[pit][1] and looks_again(weighed[pit])]
        if again:
            rest = count_probabilities(np.array([self._crops[pit] for pit in again]), QUARTER_TURNS[1:])
            for pit, reading in zip(again, rest):
                every_turn = (self._readings[pit][0] + reading * len(QUARTER_TURNS[1:])) / len(QUARTER_TURNS)
                self._readings[pit] = (every_turn, True)
                weighed[pit] = with_network(self.plausible[pit], every_turn, adds=adds)
        return weighed

    def second_look(self, pits: list[int]) -> dict[int, dict[int, float]]:
        """`WariObservation.looked_again`'s reading: the network's counts, which may add counts."""
        return self.counts(pits, adds=True)


def region_posteriors(calibrated: WariProfile, frame: np.ndarray) -> tuple[RegionMeasures, list[np.ndarray]]:
    """Every region's measures in a working-size frame, and its count posterior from them."""
    spotters = calibrated.spotters
    measures = measure_regions(frame, calibrated.geometry, calibrated.colours, spotters)
    slip = spotters[0].slip if spotters else 0.0
    finds_buried = any(spotter.finds_buried for spotter in spotters)
    posteriors = [
        calibrated.counts.posterior(
            r, measures.seed_pixels[r], (measures.spots[r], measures.crowded_spots[r]) if spotters else None, slip, finds_buried
        )
        for r in range(REGION_COUNT)
    ]
    return measures, posteriors


def colour_image_for(image: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """The image as 8-bit BGR, provided it has the calibrated shape (any resolution)."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ArbiterError("recognition needs a colour image")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.shape[2] != 3:
        raise ArbiterError("recognition needs a colour image")
    if image.dtype != np.uint8:
        raise ArbiterError("recognition needs an 8-bit image")
    height, width = image.shape[:2]
    calibrated_width, calibrated_height = geometry.image_size
    if abs(width * calibrated_height - height * calibrated_width) > 0.01 * width * calibrated_height:
        raise ArbiterError(
            f"the image is {width}x{height} but the profile was calibrated on {calibrated_width}x{calibrated_height} frames"
        )
    return image


def _board_top_match(frame: np.ndarray, calibrated: WariProfile) -> float:
    """Share of the board top that looks as it did at calibration: low when a hand, an arm's
    shadow or a moved camera changes it, or when the frame shows no board at all."""
    reference = calibrated.board_top
    seen = ~np.isnan(reference).any(axis=1)
    if not seen.any():
        return 1.0
    now = board_top_colours(frame, calibrated.geometry)
    distance = np.linalg.norm(now[seen] - reference[seen], axis=1)
    return float(np.mean(np.nan_to_num(distance, nan=np.inf) < BOARD_TOP_TOLERANCE))


def _region_counts(state_json: dict) -> list[int]:
    """A candidate's counts in region order: 12 pits, then the two stores unless it leaves them out."""
    try:
        pits = [int(n) for n in state_json["pits"]]
        stores = [int(n) for n in state_json.get("stores", [])]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ArbiterError("a Wari candidate state needs \"pits\" (12 counts) and \"stores\"") from None
    if len(pits) != PIT_COUNT or len(stores) not in (0, 2):
        raise ArbiterError("a Wari candidate state needs 12 pit counts and 2 store counts")
    return pits + stores


def _score_row(distribution: dict[int, float], weight: float) -> list[float]:
    """A region's weighed score of every count below _TABLED_COUNTS."""
    return [_log_probability(distribution, n, weight) for n in range(_TABLED_COUNTS)]


def _log_probability(distribution: dict[int, float], count: int, weight: float) -> float:
    """A region's weighed log-likelihood of holding `count` seeds: its distribution's chance, mixed
    with seeds hidden under a pile (`hidden_seed_chance`), floored at PROBABILITY_FLOOR."""
    chance = distribution.get(count, 0.0)
    read = _most_likely(distribution)
    hidden = hidden_seed_chance(read, count)
    if hidden:
        share = hidden_pile_share(read)
        chance = (1 - share) * chance + share * hidden
    return weight * math.log(max(chance, PROBABILITY_FLOOR))


def hidden_pile_share(read: int) -> float:
    """How often a region read as `read` seeds hides more than its distribution allows for
    (HIDDEN_PILE_SHARES: measured on generated sessions)."""
    return next((share for least, share in reversed(HIDDEN_PILE_SHARES) if read >= least), 0.0)


def hidden_seed_chance(read: int, count: int) -> float:
    """The chance of `count` seeds in a pile read as `read` when it hides more than its reading
    allows for: any count from one more up to HIDDEN_PILE_SPAN of the reading more, alike (a
    range, "at least `read`", not a sharp count)."""
    span = max(1, math.ceil(HIDDEN_PILE_SPAN * read))
    return 1.0 / span if read < count <= read + span else 0.0


def _board_top_from_json(obj: object) -> np.ndarray:
    try:
        colours = np.array([[np.nan] * 3 if c is None else [float(v) for v in c] for c in obj], np.float32)
    except (TypeError, ValueError):
        raise ArbiterError("the Wari profile's board colours are missing or malformed; calibrate again") from None
    if colours.ndim != 2 or colours.shape[1] != 3:
        raise ArbiterError("the Wari profile's board colours are malformed; calibrate again")
    return colours


def _start_pits_spotted_from_json(obj: object) -> int:
    # Older profiles have no count: their boards are read as if all 12 pits were spotted.
    if isinstance(obj, bool) or not isinstance(obj, int) or not 0 <= obj <= PIT_COUNT:
        raise ArbiterError("the Wari profile's start_pits_spotted must be a whole number from 0 to 12; calibrate again")
    return obj


def _most_likely(distribution: dict[int, float]) -> int:
    return max(distribution, key=distribution.get)
