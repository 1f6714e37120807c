"""Render a bench-format Wari session with a small ray tracer: photos whose seed piles really stack.

Usage (from the repository root):
    python -m training.wari_render OUT_DIR --style nicker|glass --session NUMBER
        [--positions 8] [--sequence 0 [--play random|hoarding] [--illegal 0]] [--near-starts 0]
        [--training] [--lamp-reach MM]

Writes OUT_DIR/start.jpg (4 seeds in every pit), OUT_DIR/pos000.jpg ... (random positions: 48 seeds,
up to a third in the stores), OUT_DIR/seq000.jpg ... (a random pbmserv game from the start,
one photo after every move, if --sequence asks for photos), OUT_DIR/near000.jpg ... (the start
with one pit holding 1, 2, 3, 5 or 6 seeds instead of 4, if --near-starts asks for photos: a
calibration must refuse them, see `bench_wari_calibration.py`), OUT_DIR/ill00b.jpg ... (slips at
positions of the game drawn at random, each kind of `training.wari_render.mistakes` in turn, if
--illegal asks for them) and OUT_DIR/truth.json in the bench's format (slips as `illegal_pairs`),
so that `bench_wari_vision.py` and `bench_tracker.py` read the folder like a bench session.
`--play hoarding` plays the game as a player building a big pile: one of the two pits holding
fewest seeds each move, so that 60 moves bring piles past 20 about half the time.

The session number fixes what a mounted camera over one table keeps: camera pose and lens, the
lamp's place, size and colour, the board (its proportions and wood) and the table cloth. Every
photo drops its seeds afresh and draws its own sensor noise. Output depends only on (style,
session), so sessions nobody tuned on can be made at will.

`--training` makes sessions for training a counter rather than for measuring one: each session
also draws the seeds' size and how their shades vary, the bowls' depth and how near their rims
the seeds come to rest (so that piles lie spread up the walls in some sessions and gathered
nearer the middle in others) and whether the board is varnished (the lamp glares on the bowls'
floors) or oiled, whether the pits' rims are bevelled (a cone cut round the bowl, as on the
bench's boards) and how wide and steep, and each position's pits hold counts drawn evenly from 0
up to 10-20, so that big piles come as often as small ones. Its positions are not game
positions (their seeds need not add up to 48). It also draws how far to the side of the board
the lamp hangs, further than plain sessions do. `--lamp-reach MM` sets that distance instead
(plain or training): the same session and photos under a lamp moved nearer overhead or further
to the side.

The scene is measured in millimetres: the board top is the plane z = 0, x runs along the rows
(South's pits a..f towards +x), y towards North and z up. Seeds are dropped one by one into their
bowl and roll to rest on the bowl and on each other, then the scene is ray traced (perspective,
an area lamp with soft shadows, Lambert plus Blinn-Phong highlights, a little ambient light), and
the photo is given vignetting, the lamp's colour cast, sensor noise, sometimes blur, and JPEG
compression.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from engines.wari import VARIANTS, WariRules, WariState
from vision.wari_board import PIT_COUNT

from training.wari_render.mistakes import KINDS, mistake
from training.wari_render.photo import render_photo
from training.wari_render.scene import STYLES
from training.wari_render.setup import TRAINING_MOST_SEEDS, make_session, photo_rng, session_rng


def random_position(rng: np.random.Generator) -> dict:
    """48 seeds: up to a third in the stores, the rest spread unevenly over the pits (piles as in play)."""
    stores = rng.multinomial(int(rng.integers(0, 17)), [0.5, 0.5])
    pits = rng.multinomial(48 - int(stores.sum()), rng.dirichlet(np.ones(PIT_COUNT)))
    return {"pits": [int(n) for n in pits], "stores": [int(n) for n in stores]}


def random_game(photos: int, rng: np.random.Generator, play: str = "random") -> list[tuple[dict, WariState]]:
    """The positions of a pbmserv game from the start, each but the last with the move played
    next, and each with its engine state; shorter if the game ends first. `play` "random" draws
    every legal move alike; "hoarding" plays one of the two pits holding fewest seeds, as a player
    building a big pile does (piles past 20 in about half of 60-move games)."""
    rules = WariRules(VARIANTS["pbmserv"])
    state = rules.start()
    items = []
    for _ in range(photos):
        items.append(({"pits": list(state.pits), "stores": list(state.stores)}, state))
        moves = [] if rules.is_over(state) else rules.legal_moves(state)
        if len(items) == photos or not moves:
            break
        if play == "hoarding":
            fewest = sorted(moves, key=lambda m: state.pits[m.index])
            move = fewest[int(rng.integers(min(HOARDING_CHOICES, len(fewest))))]
        else:
            move = moves[int(rng.integers(len(moves)))]
        items[-1][0]["next_move"] = move.to_json()
        state = rules.apply(state, move)
    return items


# "hoarding" play chooses among this many of the pits holding fewest seeds.
HOARDING_CHOICES = 2


def illegal_pairs(game: list[tuple[dict, WariState]], count: int, rng: np.random.Generator) -> list[dict]:
    """`count` slips (kinds in turn, training.wari_render.mistakes) at positions of the game drawn
    at random, in the bench's `illegal_pairs` format: before (a sequence item), after, kind, player."""
    rules = WariRules(VARIANTS["pbmserv"])
    pairs = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        for at in rng.permutation(len(game)):
            item, state = game[int(at)]
            if rules.is_over(state):
                continue
            after = mistake(rules, state, kind, rng)
            if after is not None:
                break
        else:
            continue
        pairs.append({"before": item, "after": {"image": f"ill{index:02d}b.jpg", "pits": after["pits"],
                                                "stores": after["stores"]},
                      "kind": kind, "player": after["player"]})
    return pairs


def even_piles(rng: np.random.Generator) -> dict:
    """Pits holding counts drawn evenly from 0 up to a most of 10-20, stores 0-7 (--training)."""
    most = int(rng.integers(TRAINING_MOST_SEEDS[0], TRAINING_MOST_SEEDS[1] + 1))
    return {"pits": [int(n) for n in rng.integers(0, most + 1, PIT_COUNT)], "stores": [int(n) for n in rng.integers(0, 8, 2)]}


def near_starts(photos: int, rng: np.random.Generator) -> list[dict]:
    """Start positions with one pit (drawn) holding 1, 2, 3, 5 or 6 seeds instead of 4 (drawn in turn)."""
    odd_counts = (1, 2, 3, 5, 6)
    items = []
    for index in range(photos):
        pits = [4] * PIT_COUNT
        pits[int(rng.integers(PIT_COUNT))] = odd_counts[index % len(odd_counts)]
        items.append({"image": f"near{index:03d}.jpg", "pits": pits, "stores": [0, 0]})
    return items


def write_session(
    out_dir: Path, style: str, session_number: int, positions: int, sequence: int, training: bool = False, near: int = 0,
    lamp_reach: float | None = None, play: str = "random", illegal: int = 0,
) -> None:
    session = make_session(style, session_number, training, lamp_reach)
    counts_rng = session_rng(style, session_number, 2)
    start = {"image": "start.jpg", "pits": [4] * PIT_COUNT, "stores": [0, 0]}
    draw = even_piles if training else random_position
    position_items = [{"image": f"pos{i:03d}.jpg", **draw(counts_rng)} for i in range(positions)]
    game = random_game(sequence, counts_rng, play)
    sequence_items = [{"image": f"seq{i:03d}.jpg", **item} for i, (item, _) in enumerate(game)]
    pairs = illegal_pairs([(item, state) for item, (_, state) in zip(sequence_items, game)], illegal,
                          session_rng(style, session_number, 10))
    near_items = near_starts(near, session_rng(style, session_number, 7))
    # Near starts draw their photos from a stream of their own, so that asking for them leaves
    # every other photo of the session as it was.
    photos = [(item, photo_rng(style, session_number, index)) for index, item in enumerate([start] + position_items + sequence_items)]
    photos += [(item, session_rng(style, session_number, 8, index)) for index, item in enumerate(near_items)]
    photos += [(pair["after"], session_rng(style, session_number, 11, index)) for index, pair in enumerate(pairs)]
    out_dir.mkdir(parents=True, exist_ok=True)
    for item, rng in photos:
        started = time.perf_counter()
        photo = render_photo(session, item["pits"], item["stores"], rng)
        cv2.imwrite(str(out_dir / item["image"]), photo, [cv2.IMWRITE_JPEG_QUALITY, session.jpeg_quality])
        print(f"{out_dir / item['image']}: {time.perf_counter() - started:.1f} s")
    truth = {
        "style": style, "kelvin": session.lamp.kelvin, "variant": "pbmserv",
        "start": start, "positions": position_items, "sequence": sequence_items,
    }
    if near_items:
        truth["near_starts"] = near_items
    if pairs:
        truth["illegal_pairs"] = pairs
    (out_dir / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


def argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.wari_render", description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--style", choices=STYLES, required=True)
    parser.add_argument("--session", type=int, required=True, help="fixes camera, lamp, board and table")
    parser.add_argument("--positions", type=int, default=8, help="random positions to photograph")
    parser.add_argument("--sequence", type=int, default=0, help="photos of a random game from the start")
    parser.add_argument("--near-starts", type=int, default=0, help="photos of the start with one pit of other than 4 seeds")
    parser.add_argument("--play", choices=("random", "hoarding"), default="random",
                        help="how the --sequence game is played: any legal move alike, or building a big pile")
    parser.add_argument("--illegal", type=int, default=0,
                        help="photos of a slip (skipped pit, double drop, ...) at random positions of the --sequence game")
    parser.add_argument("--training", action="store_true", help="seeds, bowls and pile sizes varied for training a counter")
    parser.add_argument("--lamp-reach", type=float, help="mm from the board's middle to the lamp, sideways (default: drawn)")
    return parser


def main(argv: list[str]) -> int:
    parser = argument_parser()
    args = parser.parse_args(argv)
    if args.lamp_reach is not None and not 0 < args.lamp_reach <= 1000:
        parser.error("--lamp-reach takes a distance in mm, above 0 and at most 1000")
    write_session(
        args.out_dir, args.style, args.session, args.positions, args.sequence, args.training, args.near_starts, args.lamp_reach,
        args.play, args.illegal,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
