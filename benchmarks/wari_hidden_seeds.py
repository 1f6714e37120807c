"""How many seeds hide whole in the piles of `render_wari_session.py --training` sessions.

Usage (from the repository root):
    .venv/bin/python benchmarks/wari_hidden_seeds.py DIR [DIR ...] [--shown 0.1]

Each DIR is a session the renderer wrote with --training, its folder named by style and session
number (nicker412 for `--style nicker --session 412`). Its seeds are dropped again as the renderer
dropped them for its photos, and each seed is traced twice from the camera: among everything else
(the pixels it shows) and alone (the pixels it would show). A seed showing less than --shown of
itself is hidden: no counter looking from above can see it. Prints, per session, its rim
clearance (seed radii) and the share of its pits of 8-12 seeds where a seed hides, then the
shares pooled by clearance. The seeds are those of the photos only if this checkout's renderer
draws --training sessions as the one that wrote them did: run it where that renderer is.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import render_wari_session as render  # beside this script

PILE = (8, 12)
CLEARANCE_STEPS = (0.7, 1.2, 1.8, 2.5)


def hidden_per_pit(folder: Path, shown: float) -> tuple[float, list[tuple[int, int]]]:
    """(the session's rim clearance, [(true count, seeds hidden)] for every pit of its positions)."""
    style = folder.name.rstrip("0123456789")
    if style not in render.STYLES or style == folder.name:
        raise ValueError("the folder's name is not a style and a session number (nicker412, glass600)")
    number = int(folder.name[len(style):])
    session = render.make_session(style, number, training=True)
    truth = json.loads((folder / "truth.json").read_text())
    pixels = render.pixel_grid()
    directions = render.camera_rays(session.camera, pixels)
    pits = []
    for index, item in enumerate(truth["positions"] + truth["sequence"], start=1):  # photo 0: the start
        seeds = render.drop_seeds(session, item["pits"] + item["stores"], render.photo_rng(style, number, index))
        hits = render.trace(session.camera, session.board, seeds, pixels, directions)
        showing = np.bincount(hits.seeds[hits.seeds >= 0], minlength=len(seeds.centres))
        alone = np.array([pixels_alone(session.camera, seeds, seed, pixels, directions) for seed in range(len(showing))])
        hidden = showing < shown * np.maximum(alone, 1)
        pits += [(count, int(hidden[seeds.regions == pit].sum())) for pit, count in enumerate(item["pits"])]
    return session.rim_clearance, pits


def pixels_alone(camera: render.Camera, seeds: render.Seeds, seed: int, pixels: np.ndarray, directions: np.ndarray) -> int:
    """How many pixels the seed would show with nothing in front of it."""
    centre, semi_axes = seeds.centres[seed], seeds.semi_axes[seed]
    rays = render.rays_near(camera, pixels, centre, semi_axes.max())
    met = render.ellipsoid_roots(camera.position, directions[rays], centre, semi_axes, seeds.rotations[seed])[2]
    return int(met.sum())


def hiding(piles: list[int]) -> str:
    share = 100 * np.mean([hidden > 0 for hidden in piles]) if piles else float("nan")
    return f"{len(piles)} pits of {PILE[0]}-{PILE[1]}, a seed hidden in {share:.1f} %"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", type=Path, nargs="+")
    parser.add_argument("--shown", type=float, default=0.1, help="a seed showing less than this share of itself hides")
    args = parser.parse_args(argv)
    pooled: dict[int, list[int]] = {}
    for folder in args.sessions:
        try:
            clearance, pits = hidden_per_pit(folder, args.shown)
        except (OSError, ValueError, KeyError) as error:
            print(f"{folder}: skipped: {error}")
            continue
        piles = [hidden for count, hidden in pits if PILE[0] <= count <= PILE[1]]
        step = int(np.searchsorted(CLEARANCE_STEPS, clearance, side="right")) - 1
        pooled.setdefault(step, []).extend(piles)
        print(f"{folder}: rim clearance {clearance:.2f}, {hiding(piles)}")
    for step in sorted(pooled):
        low, high = CLEARANCE_STEPS[step], CLEARANCE_STEPS[min(step + 1, len(CLEARANCE_STEPS) - 1)]
        print(f"rim clearance {low}-{high}: {hiding(pooled[step])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
