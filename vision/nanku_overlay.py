"""Drawing what Nanku recognition read on top of the camera frame: each cube's visible faces outlined."""
from __future__ import annotations

import cv2
import numpy as np

from vision.nanku import NankuObservation

_KNOWN = (80, 220, 80)  # BGR: cubes of the structure before this picture
_NEW = (0, 170, 255)  # cubes the picture adds to it


def draw_overlay(image: np.ndarray, observation: NankuObservation) -> np.ndarray:
    """A copy of the frame with the reading's cubes outlined where the camera sees them; the cubes
    new since the last position in orange, each top labelled with its level (1 on the table)."""
    canvas = image.copy()
    cubes, pose, scene = observation.drawn_reading()
    scale = canvas.shape[1] / scene.costs.shape[1]
    faces = scene.faces(cubes, pose)
    known = set(observation.following)
    thickness = max(1, round(scale / 2))
    for cube in sorted(cubes, key=lambda c: -faces.distance[c]):
        colour = _KNOWN if cube in known else _NEW
        for polygon, _, normal in faces.polygons[cube]:
            points = np.round(polygon * scale).astype(np.int32)
            cv2.polylines(canvas, [points], True, colour, thickness, cv2.LINE_AA)
            if normal[2] > 0.5:
                centre = points.mean(axis=0).astype(int)
                cv2.putText(canvas, str(int(cube[2]) + 1), (int(centre[0]) - 6, int(centre[1]) + 6),
                            cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale / 2, colour, thickness, cv2.LINE_AA)
    return canvas
