"""Drawing what Nanku recognition read on top of the camera frame: each cube's visible faces outlined."""
from __future__ import annotations

import cv2
import numpy as np

from vision.nanku import NankuObservation

_KNOWN = (80, 220, 80)  # BGR: cubes of the structure before this picture
_NEW = (0, 170, 255)  # cubes the picture adds to it


def draw_overlay(image: np.ndarray, observation: NankuObservation, expected: dict | None = None) -> np.ndarray:
    """A copy of the frame with the reading's cubes outlined where the camera sees them; the cubes
    new since the last position in orange, each top labelled with its level (1 on the table).
    `expected` is not drawn: the new cubes are what a flagged placement is about."""
    canvas = image.copy()
    cubes, pose, scene = observation.drawn_reading()
    scale = canvas.shape[1] / scene.costs.shape[1]
    faces = scene.faces(cubes, pose)
    known = set(observation.following)
    cube_px = scale * scene.camera.cube_px
    thickness = max(1, round(cube_px / 30))
    # Levels are written a third of a cube tall, to read on a phone where the picture is shrunk.
    font = cube_px / 3 / 22.0  # Hershey simplex digits are about 22 px tall at scale 1
    for cube in sorted(cubes, key=lambda c: -faces.distance[c]):
        colour = _KNOWN if cube in known else _NEW
        for polygon, _, normal in faces.polygons[cube]:
            points = np.round(polygon * scale).astype(np.int32)
            cv2.polylines(canvas, [points], True, colour, thickness, cv2.LINE_AA)
            if normal[2] > 0.5:
                label = str(int(cube[2]) + 1)
                (width, height), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thickness)
                centre = points.mean(axis=0)
                cv2.putText(canvas, label, (int(centre[0] - width / 2), int(centre[1] + height / 2)),
                            cv2.FONT_HERSHEY_SIMPLEX, font, colour, thickness, cv2.LINE_AA)
    return canvas
