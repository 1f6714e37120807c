"""How well a person counts piles from the same pictures: unlabelled crop sheets to count by eye.

Usage:
  python3 benchmarks/wari_blind_sheets.py SESSION_DIR OUT_DIR [--low 8 --high 12 --count 24 --seed 5]
  python3 benchmarks/wari_blind_sheets.py --score OUT_DIR COUNTS

The first form picks `--count` random pits holding `--low`..`--high` seeds from a bench session's
photos and writes crop sheets (`sheet0.png`, ...; 8 numbered crops each, 2.1x full resolution)
with no count on them, and `key.json` (per crop: true count and what `recognize` read). Count the
seeds in each crop without looking at the key, and write the counts as a JSON list in crop order;
an undecided count may be a half (9.5: 9 or 10). The second form scores those counts against the
key beside `recognize`, in all and by true count: a person's exact share is a bound that says how far a seed detector could
go on these photos, and whether seeds hide whole or only in part.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.wari import WariProfile, recognize

from bench_wari_vision import session_folders, session_photos  # beside this script

PER_SHEET, PER_ROW = 8, 4
HALF_WIDTH_IN_PITS = 0.55  # a crop shows the pit and a little of the board around it
ZOOM = 320


def make_sheets(folder: Path, out: Path, low: int, high: int, count: int, seed: int) -> None:
    _, profile, photos = session_photos(folder, None)
    geometry = WariProfile.from_json(profile).geometry
    pitch = float(np.linalg.norm(np.diff(geometry.to_image(np.array([[0.0, 0.0], [1.0, 0.0]])), axis=0)))
    half = round(HALF_WIDTH_IN_PITS * pitch)
    crops, key = [], []
    for image, item, _ in photos:
        read = recognize(image, profile).pits
        padded = cv2.copyMakeBorder(image, half, half, half, half, cv2.BORDER_CONSTANT)  # pits near an edge
        for pit, true in enumerate(item["pits"]):
            if low <= true <= high:
                x, y = np.round(geometry.to_image(np.array([geometry.centre_in_board(pit)]))[0]).astype(int)
                crops.append(padded[y : y + 2 * half, x : x + 2 * half])
                key.append({"image": item["image"], "pit": pit, "true": true, "read": read[pit]})
    chosen = np.random.default_rng(seed).permutation(len(crops))[:count]
    tiles = []
    for number, index in enumerate(chosen):
        tile = cv2.resize(crops[index], (ZOOM, ZOOM), interpolation=cv2.INTER_CUBIC)
        cv2.putText(tile, str(number), (5, 25), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 0, 255), 2)
        tiles.append(tile)
    out.mkdir(parents=True, exist_ok=True)
    blank = np.zeros((ZOOM, ZOOM, 3), np.uint8)
    for sheet, first in enumerate(range(0, len(tiles), PER_SHEET)):
        group = tiles[first : first + PER_SHEET]
        group += [blank] * (PER_SHEET - len(group))
        rows = [np.hstack(group[r : r + PER_ROW]) for r in range(0, PER_SHEET, PER_ROW)]
        cv2.imwrite(str(out / f"sheet{sheet}.png"), np.vstack(rows))
    (out / "key.json").write_text(json.dumps([key[i] for i in chosen], indent=1))
    print(f"{len(tiles)} crops of {len(crops)} pits holding {low}-{high} seeds, sheets in {out}")


def score(out: Path, counts_file: Path) -> None:
    try:
        key = json.loads((out / "key.json").read_text())
        counts = json.loads(counts_file.read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"error: cannot read the key or the counts: {error}") from None
    numbers = isinstance(counts, list) and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in counts)
    if not numbers or len(counts) != len(key):
        raise SystemExit(f"error: the counts must be a JSON list of {len(key)} numbers, one per crop")
    exact = sum(c == k["true"] for c, k in zip(counts, key))
    undecided = sum(abs(c - k["true"]) == 0.5 for c, k in zip(counts, key))
    wrong = len(key) - exact - undecided
    read = sum(k["read"] == k["true"] for k in key)
    print(f"by eye: {exact}/{len(key)} exact, {undecided} undecided between two counts including the truth,"
          f" {wrong} wrong; recognize: {read}/{len(key)} exact")
    # A counter who knows the pits' range may lift a count below it to its lowest value (seeing 7
    # nuts where every pit holds 8 or more): read the lowest count's line with that in mind.
    for true in sorted({k["true"] for k in key}):
        pairs = [(c, k["read"]) for c, k in zip(counts, key) if k["true"] == true]
        print(f"  {true} seeds: by eye {sum(c == true for c, _ in pairs)}/{len(pairs)} exact,"
              f" recognize {sum(r == true for _, r in pairs)}/{len(pairs)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--score", action="store_true", help="score counts (second form)")
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--low", type=int, default=8)
    parser.add_argument("--high", type=int, default=12)
    parser.add_argument("--count", type=int, default=24)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    if args.score:
        score(args.first, args.second)
    else:
        make_sheets(session_folders([args.first])[0], args.second, args.low, args.high, args.count, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
