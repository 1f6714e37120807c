"""How well calibration finds the pits and stores of `render_wari_session.py` sessions.

Usage (from the repository root):
    .venv/bin/python benchmarks/wari_geometry.py DIR [DIR ...] [--training]

Each DIR is a session the renderer wrote, its folder named by style and session number
(nicker_1100 or nicker1100; --training if it was written with --training). The renderer makes the
session's board and camera again, so each pit's and store's rim on the board top (a bevelled
pit's: the bevel's outline) can be projected into the frame exactly; the profile `arbiter calibrate wari` makes from the session's
start photo is compared with it. Prints, per session and pooled, for pits and stores apart:
the worst and mean overlap (intersection over union of the calibrated outline and the true one),
the worst centre error in true pit radii, and the range of sizes (the calibrated outline's mean
reach from its centre over the true one's). The recogniser counts seeds inside these outlines
and the pile counter reads crops centred on them, so an outline off the rim loses seeds.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.wari import calibrate
from engines.errors import ArbiterError
from vision.io import read_image
from vision.wari_board import PIT_COUNT, BoardGeometry

import render_wari_session as render  # beside this script

RIM_POINTS = 180


def style_and_number(folder: Path) -> tuple[str, int]:
    name = folder.name.replace("_", "")
    style = name.rstrip("0123456789")
    if style not in render.STYLES or style == name:
        raise ValueError("the folder's name is not a style and a session number (nicker_1100)")
    return style, int(name[len(style):])


def true_rims(session: render.Session) -> list[np.ndarray]:
    """Every region's rim in the frame, in contract order (pits, South's store, North's store)."""
    angles = np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)
    circle = np.column_stack([np.cos(angles), np.sin(angles)])
    rims = [hollow.centre[:2] + circle * hollow.opening for hollow in session.board.hollows]
    return [render.projected(session.camera, np.column_stack([rim, np.zeros(len(rim))])) for rim in rims]


def overlap(first: np.ndarray, second: np.ndarray) -> float:
    """Intersection over union of two outlines in the frame."""
    masks = []
    for outline in (first, second):
        mask = np.zeros(render.FRAME_SIZE[::-1], np.uint8)
        cv2.fillPoly(mask, [np.round(outline * 8).astype(np.int32)], 1, shift=3)
        masks.append(mask.astype(bool))
    return float((masks[0] & masks[1]).sum() / max((masks[0] | masks[1]).sum(), 1))


def reach(outline: np.ndarray) -> float:
    return float(np.linalg.norm(outline - outline.mean(axis=0), axis=1).mean())


def compare(geometry: BoardGeometry, rims: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(overlap, centre error in true pit radii, calibrated size / true size) of every region."""
    pit_radius = np.mean([reach(rim) for rim in rims[:PIT_COUNT]])
    overlaps, errors, sizes = [], [], []
    for region, rim in enumerate(rims):
        found = geometry.outline_in_image(region)
        overlaps.append(overlap(found, rim))
        centre = geometry.to_image(np.array([geometry.centre_in_board(region)]))[0]
        errors.append(np.linalg.norm(centre - rim.mean(axis=0)) / pit_radius)
        sizes.append(reach(found) / reach(rim))
    return np.array(overlaps), np.array(errors), np.array(sizes)


def line(title: str, overlaps: np.ndarray, errors: np.ndarray, sizes: np.ndarray) -> str:
    parts = [title]
    for name, picked in (("pits", slice(0, PIT_COUNT)), ("stores", slice(PIT_COUNT, None))):
        kept, off, size = overlaps[:, picked], errors[:, picked], sizes[:, picked]
        parts.append(
            f"{name} overlap worst {kept.min():.2f} mean {kept.mean():.3f}, centre off up to {off.max():.2f} pit radii,"
            f" size {size.min():.2f}-{size.max():.2f}"
        )
    return " | ".join(parts)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", type=Path, nargs="+")
    parser.add_argument("--training", action="store_true", help="the sessions were rendered with --training")
    args = parser.parse_args(argv)
    pooled = []
    for folder in args.sessions:
        try:
            style, number = style_and_number(folder)
            geometry = BoardGeometry.from_json(calibrate(read_image(folder / "start.jpg"))["board"])
        except (OSError, ValueError, ArbiterError) as error:
            print(f"{folder}: skipped: {error}")
            continue
        found = compare(geometry, true_rims(render.make_session(style, number, training=args.training)))
        pooled.append(found)
        print(line(f"{folder.name}:", *(values[None] for values in found)), flush=True)
    if pooled:
        print(line(f"all {len(pooled)}:", *(np.array(values) for values in zip(*pooled))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
