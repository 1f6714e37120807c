"""Disc colours: ring colour probabilities, settled per size with the inventory."""
from __future__ import annotations

import numpy as np

from vision import _varanasi_rings
from vision.varanasi_assignment import assign
from vision.varanasi_colour import ColourModel
from vision.varanasi_observation import DiscReading, TowerReading
from vision.varanasi_params import (
    COLOURED_SHARE,
    EDGE_MARGIN_PX,
    IMPOSSIBLE_COST,
    MIN_RING_PIXELS,
    PROBABILITY_FLOOR,
)
from vision.varanasi_pieces import PieceSet
from vision.varanasi_profile import ParsedProfile


def colour_slots(lab_bytes, labels, origin, frame: ParsedProfile, circles) -> list[DiscReading]:
    """Colour probabilities of each slot from the ring it shows below the next disc up.

    Rings can be a few pixels wide (a small disc nearly covering a bigger one's rim), so rather
    than a fixed margin, pixels that match no colour (disc sides, shadows) are left out.
    """
    other = len(frame.colours.names) + 1
    lab_bytes, labels = np.ascontiguousarray(lab_bytes), np.ascontiguousarray(labels)
    typicals = []
    for index, (_, (cx, cy), radius, _) in enumerate(circles):
        above = next((k for k in range(index + 1, len(circles)) if circles[k][3] >= 0.5), None)
        hidden_by = None if above is None else (circles[above][1], circles[above][2] + EDGE_MARGIN_PX)
        typicals.append(ring_medians(lab_bytes, labels, other, (cx, cy), radius - EDGE_MARGIN_PX, hidden_by))
    slots = []
    for (size, (cx, cy), radius, presence), probabilities in zip(circles, _colour_probabilities(typicals, frame.ring_colours)):
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


def ring_medians(lab_bytes: np.ndarray, labels: np.ndarray, other: int, centre, inside: float,
                 hidden_by=None) -> np.ndarray | None:
    """Per-channel medians (float32, the mean of the middle two for an even count) of the 8-bit
    Lab pixels of a disc's ring: within `inside` px of `centre` and, with `hidden_by` ((centre,
    radius) around the next disc up), beyond that radius of its centre; only the pixels whose label
    is not `other` (disc sides, shadows), unless fewer than COLOURED_SHARE of the ring's are:
    then the face itself is lit off its calibrated colour (a pale top disc, haze), and the few
    pixels left are the rim's fringe. None when fewer than MIN_RING_PIXELS are left (the ring is
    hidden). Circles are tested in float64 as numpy tests them, pixel centres at whole numbers.

    Compiled (vision/varanasi_rings.c): one pass over the ring's window, where numpy's masks
    and OpenCV's masked histograms cost some twenty calls a disc."""
    (cx, cy), ((ax, ay), away) = centre, hidden_by if hidden_by is not None else ((0.0, 0.0), 0.0)
    height, width = labels.shape
    _, medians = _varanasi_rings.ring_medians(
        lab_bytes, labels, width, height, other, float(cx), float(cy), float(inside), float(inside) ** 2,
        hidden_by is not None, float(ax), float(ay), float(away) ** 2, COLOURED_SHARE, MIN_RING_PIXELS)
    return None if medians is None else np.array(medians, dtype=np.float32)


def _colour_probabilities(typicals: list, colours: ColourModel) -> list[np.ndarray]:
    """Posterior over colour names of each ring of median Lab in `typicals`; flat for a hidden
    ring (None). The rings of a tower are weighed in one call: each row's arithmetic is the
    same as alone (tests/vision/varanasi/test_fast_paths.py), at a fraction of the calls."""
    flat = np.full(len(colours.names), 1.0 / len(colours.names))
    shown = [typical for typical in typicals if typical is not None]
    if not shown:
        return [flat] * len(typicals)
    log_likelihood = colours.log_likelihoods(np.stack(shown))
    weights = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    rows = iter(weights / weights.sum(axis=1, keepdims=True))
    return [flat if typical is None else next(rows) for typical in typicals]


def _keep_costs(slot: DiscReading, names) -> list:
    """−log(presence · P(colour)) of a slot for each colour name, presence and P(colour) floored
    as `DiscReading.colour_probability` floors them (its table made once, not once a colour)."""
    probabilities = dict(slot.colours)
    present = max(slot.presence, PROBABILITY_FLOOR)
    return [-np.log(present * max(PROBABILITY_FLOOR, probabilities.get(name, 0.0))) for name in names]


def settle_colours(towers, pieces: PieceSet):
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
        keep = np.array([_keep_costs(s, pieces.colours) for s in slots])
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
