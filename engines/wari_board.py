"""A Wari position packed into one integer, its key, and the sums that sow and test it.

Pit i's seed count is byte i of the key and bit 96 is the player to move. A pit never holds more
than the 48 seeds of a set, so a byte holds any count, its top bit stays clear, and adding seeds
to several pits is adding one number: a hand that passes no pit over but its origin (laps
included) is sown by one addition of a number worked out here per origin and hand. Adding 128 - n to every byte sets the
top bit of exactly the bytes holding n or more (48 + 127 still fits a byte, so nothing carries
into the next pit): the pits holding seeds, or holding n or more, are read with an addition and a
mask instead of a loop over the pits.

A key is the whole position (pits and mover), so it is also what the record of positions seen
since the last capture keeps and looks up.
"""
from __future__ import annotations

import functools

SEEDS = 48  # in a set
PITS = 12
ROW = 6
BOARD = (1 << 8 * PITS) - 1  # the pits' bytes
MOVER = 1 << 8 * PITS  # the mover's bit: set when North is to move
ONES = sum(1 << 8 * pit for pit in range(PITS))  # one in every pit's byte
TOPS = 128 * ONES  # every pit's top bit
NONEMPTY = 127 * ONES  # added to a key: top bits of the pits holding seeds
ROWS = (((1 << 8 * ROW) - 1), ((1 << 8 * ROW) - 1) << 8 * ROW)  # South's and North's pits' bytes
ROW_TOPS = (TOPS & ROWS[0], TOPS & ROWS[1])


def at_least(count: int) -> int:
    """Added to a key, sets the top bit of the pits holding `count` seeds or more (count >= 1)."""
    return (128 - count) * ONES


def key_of(pits, mover: int) -> int:
    """The key of a position (pits: 12 counts from 0 to 255)."""
    return int.from_bytes(bytes(pits), "little") | mover * MOVER


@functools.lru_cache(maxsize=1 << 14)
def pits_of(key: int) -> tuple[int, ...]:
    """The pits of a key (kept for the keys asked most lately: the states along one line of play
    share most of the positions they have seen, which their JSON lists)."""
    return tuple((key & BOARD).to_bytes(PITS, "little"))


def pit_tops(pits) -> int:
    """The top bits of the bytes of the given pits."""
    return sum(128 << 8 * pit for pit in pits)


def pits_sown(origin: int, hand: int) -> list[int]:
    """The pit each seed of a hand falls in, the origin passed over on a lap (no other pit passed
    over, nothing taken on the way)."""
    laps = [pit for pit in range(origin + 1, origin + PITS) for pit in [pit % PITS]]
    return [laps[seed % (PITS - 1)] for seed in range(hand)]


def addition(origin: int, hand: int) -> int:
    """The number whose addition to a key sows a hand as `pits_sown` drops it."""
    return sum(1 << 8 * pit for pit in pits_sown(origin, hand)) - (hand << 8 * origin)


# Per origin and hand of less than a lap: its `addition`, the last pit sown, the top bits of the
# pits sown and of those sown before the last.
SOWING = tuple(tuple(addition(origin, hand) for hand in range(PITS)) for origin in range(PITS))
LAST = tuple(tuple((origin + hand) % PITS for hand in range(PITS)) for origin in range(PITS))
SOWN_TOPS = tuple(tuple(pit_tops(pits_sown(origin, hand)) for hand in range(PITS)) for origin in range(PITS))
ON_THE_WAY_TOPS = tuple(tuple(pit_tops(pits_sown(origin, hand)[:-1]) for hand in range(PITS))
                        for origin in range(PITS))


@functools.cache
def quick_sowings(capture_anywhere: bool, skip_origin: bool) -> tuple:
    """Per mover, origin and hand (any count a byte holds), in a variant that passes no pit over
    but the origin and takes nothing on the way, for the hands of the mover's pits one addition
    sows (laps too where the origin is passed over): that addition with the turn passed on, the
    shift of the last pit sown where a capture may start from it (else None), that pit, and the
    addition alone; None for the other hands."""
    def quick(mover: int, origin: int, hand: int) -> tuple | None:
        if origin // ROW != mover or not 0 < hand <= SEEDS or (hand >= PITS and not skip_origin):
            return None
        last = pits_sown(origin, hand)[-1]
        capture_at = 8 * last if capture_anywhere or last // ROW != mover else None
        sowing = addition(origin, hand)
        return sowing + (MOVER if mover == 0 else -MOVER), capture_at, last, sowing

    return tuple(tuple(tuple(quick(mover, origin, hand) for hand in range(256)) for origin in range(PITS))
                 for mover in (0, 1))


no_quick_sowings = (((None,) * 256,) * PITS,) * 2  # `quick_sowings` for the variants that have none
