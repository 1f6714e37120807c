"""A synthetic camera over a Nanku table: cube structures drawn from above with a lamp and a shadow.

Fast and plain (flat-shaded faces, a blurred shadow, a felt's texture, sensor noise, JPEG-like
blur), for the simulated table, the demo and the tests; every session draws its own table colour,
cube tints, lamp, cube size, camera height (30-40 cm) and lean (up to 10 degrees) from its seed.
`write_session` writes a bench-format session (a game photographed after every placement, with
the structure slid and turned between photos, and one illegal pair of each kind) for
benchmarks/bench_nanku_vision.py.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from random import Random

import cv2
import numpy as np

from engines.nanku import NankuRules
from vision.nanku_camera import Camera, Pose, project_cubes

WIDTH, HEIGHT = 1280, 960
TABLES = ((96, 92, 88), (60, 110, 55), (45, 85, 135), (150, 165, 180), (110, 100, 120))


@dataclass(frozen=True)
class Look:
    """One session's camera, lamp and colours."""

    camera: Camera
    table: tuple
    white: tuple
    black: tuple
    lamp: tuple  # unit vector towards the lamp, in table axes
    noise: float

    @classmethod
    def drawn(cls, seed: int) -> Look:
        rng = Random(seed)
        cube_mm = rng.uniform(15.0, 25.0)
        height = rng.uniform(300.0, 400.0) / cube_mm
        cube_px = rng.uniform(45.0, 75.0)
        lean, towards = math.radians(rng.uniform(0.0, 10.0)), rng.uniform(0.0, 2 * math.pi)
        camera = Camera(cube_px * height, WIDTH / 2 + rng.uniform(-20, 20), HEIGHT / 2 + rng.uniform(-20, 20), height,
                        lean * math.cos(towards), lean * math.sin(towards))
        table = tuple(min(255.0, max(0.0, c * rng.uniform(0.8, 1.2))) for c in rng.choice(TABLES))
        white = tuple(rng.uniform(200, 245) - shade for shade in (rng.uniform(0, 40), rng.uniform(0, 15), 0.0))
        black = tuple(rng.uniform(12, 40) for _ in range(3))
        azimuth, elevation = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(45, 80))
        lamp = (math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation))
        return cls(camera, table, white, black, lamp, rng.uniform(2.0, 5.0))


def render(cubes, look: Look, pose: Pose, shot: int = 0) -> np.ndarray:
    """A BGR photo of `cubes` ((x, y, z, colour), half-integers allowed) lying at `pose`."""
    rng = np.random.default_rng(shot)
    base = np.array(look.table, np.float32)
    texture = cv2.GaussianBlur(rng.normal(0.0, 1.0, (HEIGHT // 8, WIDTH // 8)).astype(np.float32), (0, 0), 2.0)
    texture = cv2.resize(texture, (WIDTH, HEIGHT)) * 6.0
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    falloff = 1.0 - 0.25 * (((xs - WIDTH / 2) / WIDTH) ** 2 + ((ys - HEIGHT / 2) / HEIGHT) ** 2)
    image = (base[None, None, :] * falloff[..., None] + texture[..., None]).astype(np.float32)
    cubes = [tuple(c) for c in cubes]
    if cubes:
        lamp = np.array(look.lamp)
        # The shadow: the structure's footprint pushed away from the lamp by its height, blurred.
        heights = max(c[2] for c in cubes) + 1.0
        shadow_pose = pose.moved(-lamp[0] / lamp[2] * heights * 0.5, -lamp[1] / lamp[2] * heights * 0.5)
        shadow = np.zeros((HEIGHT, WIDTH), np.float32)
        flat = [(x, y, 0.0, colour) for x, y, _, colour in cubes]
        for faces in project_cubes(flat, look.camera, shadow_pose).polygons.values():
            for polygon, _, _ in faces:
                cv2.fillConvexPoly(shadow, np.round(polygon * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 6.0)
        image *= (1.0 - 0.35 * np.clip(shadow, 0, 1))[..., None]
        faces = project_cubes(cubes, look.camera, pose)
        for cube in sorted(cubes, key=lambda c: -faces.distance[c]):
            colour = np.array(look.white if cube[3] == "white" else look.black, np.float32)
            for polygon, _, normal in faces.polygons[cube]:
                light = 0.45 + 0.6 * max(0.0, float(np.dot(normal, lamp)))
                cv2.fillConvexPoly(image, np.round(polygon * 8).astype(np.int32),
                                   tuple(float(v) for v in np.clip(colour * light, 0, 255)), cv2.LINE_AA, 3)
                cv2.polylines(image, [np.round(polygon * 8).astype(np.int32)], True,
                              tuple(float(v) * 0.6 for v in np.clip(colour * light, 0, 255)), 1, cv2.LINE_AA, 3)
    image = cv2.GaussianBlur(image, (0, 0), 0.8)
    image += rng.normal(0.0, look.noise, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def random_pose(rng: Random, cubes) -> Pose:
    """The structure slid and turned as a player would, kept under the camera."""
    xs = [c[0] for c in cubes]
    ys = [c[1] for c in cubes]
    middle = ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    turn = rng.uniform(-math.pi, math.pi)
    c, s = math.cos(turn), math.sin(turn)
    return Pose(-(c * middle[0] - s * middle[1]) + rng.uniform(-1, 1),
                -(s * middle[0] + c * middle[1]) + rng.uniform(-1, 1), turn)


def cubes_of(state) -> list:
    return [list(cube) for piece in state.pieces for cube in piece.cubes]


def random_game(rng: Random, placements: int):
    """The states of a random legal game, stacking often so that structures reach 3+ levels."""
    rules = NankuRules()
    state = rules.start()
    states, moves = [state], []
    for _ in range(placements):
        legal = rules.legal_moves(state)
        if not legal:
            break
        high = [m for m in legal if max(c.z for c in m.piece.cubes) >= 1]
        move = rng.choice(high if high and rng.random() < 0.5 else legal)
        state = rules.apply(state, move)
        states.append(state)
        moves.append(move)
        if rules.is_over(state):
            break
    return states, moves


def illegal_after(rng: Random, state, kind: str) -> list | None:
    """The cubes of `state` with one slip of `kind` added, or None where it has no room."""
    rules = NankuRules()
    cubes = cubes_of(state)
    taken = {tuple(c[:3]) for c in cubes}
    legal = [m for m in rules.legal_moves(state) if all(c.z == 0 for c in m.piece.cubes)]
    rng.shuffle(legal)
    if kind == "off_grid" and legal:
        dx, dy = rng.choice(((0.5, 0.0), (0.0, 0.5), (-0.5, 0.0), (0.0, -0.5)))
        return cubes + [[c.x + dx, c.y + dy, c.z, c.colour] for c in legal[0].piece.cubes]
    if kind == "two_pieces" and len(legal) > 1:
        first = legal[0]
        after = rules.apply(state, first)
        second = [m for m in rules.legal_moves(after) if all(c.z == 0 for c in m.piece.cubes)]
        if not second:
            return None
        return cubes + [list(c) for c in first.piece.cubes] + [list(c) for c in rng.choice(second).piece.cubes]
    if kind == "not_touching":
        xs = [c[0] for c in cubes]
        y = rng.choice([c[1] for c in cubes])
        x = max(xs) + 2
        return cubes + [[x, y, 0, "white"], [x + 1, y, 0, "black"]]
    if kind == "overhang":
        tops = [c for c in cubes if (c[0], c[1], c[2] + 1) not in taken]
        rng.shuffle(tops)
        for top in tops:
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                first = (top[0], top[1], top[2] + 1)
                second = (top[0] + dx, top[1] + dy, top[2] + 1)
                if second not in taken and (second[0], second[1], second[2] - 1) not in taken:
                    return cubes + [[*first, "white"], [*second, "black"]]
    return None


def write_session(out: Path, seed: int) -> Path:
    """A bench-format session drawn from `seed` (kept if already written); its folder."""
    folder = Path(out) / f"nanku-{seed}"
    if (folder / "truth.json").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = Random(seed)
    look = Look.drawn(seed)
    states, moves = random_game(rng, rng.randint(12, 20))
    sequence = []
    for index, (state, move) in enumerate(zip(states[1:], moves), start=1):
        cubes = cubes_of(state)
        name = f"seq{index:03d}.jpg"
        cv2.imwrite(str(folder / name), render(cubes, look, random_pose(rng, cubes), seed * 1000 + index),
                    [cv2.IMWRITE_JPEG_QUALITY, 90])
        sequence.append({"image": name, "cubes": cubes, "last_move": {"cubes": [list(c) for c in move.piece.cubes]}})
    pairs = []
    for number, kind in enumerate(("overhang", "not_touching", "off_grid", "two_pieces")):
        before = states[rng.randint(2, len(states) - 1)]
        after = illegal_after(rng, before, kind)
        if after is None:
            continue
        pose = random_pose(rng, cubes_of(before))
        for suffix, cubes in (("a", cubes_of(before)), ("b", after)):
            cv2.imwrite(str(folder / f"ill{number:02d}{suffix}.jpg"), render(cubes, look, pose, seed * 1000 + 500 + number),
                        [cv2.IMWRITE_JPEG_QUALITY, 90])
        pairs.append({"before": {"image": f"ill{number:02d}a.jpg", "cubes": cubes_of(before)},
                      "after": {"image": f"ill{number:02d}b.jpg", "cubes": after}, "kind": kind,
                      "to_move": before.to_move})
    truth = {"generator": {"module": "device.synthetic_nanku", "seed": seed}, "sequence": sequence,
             "illegal_pairs": pairs}
    (folder / "truth.json").write_text(json.dumps(truth))
    return folder

