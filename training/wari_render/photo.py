"""One photo: seeds dropped, rays traced and shaded, outlines anti-aliased, and the sensor's picture developed."""
from __future__ import annotations

import cv2
import numpy as np

from training.wari_render.lighting import lamp_points, shade
from training.wari_render.scene import FRAME_SIZE, Seeds, Session
from training.wari_render.seeds import drop_seeds
from training.wari_render.trace import camera_rays, pixel_grid, trace

EDGE_SUBPIXELS = ((-0.25, -0.25), (0.25, -0.25), (-0.25, 0.25), (0.25, 0.25))  # rays averaged on outlines


def develop(radiance: np.ndarray, session: Session, rng: np.random.Generator) -> np.ndarray:
    """The sensor's picture: exposure, lamp colour cast, vignetting, gamma, blur, noise; 8-bit BGR."""
    width, height = FRAME_SIZE
    ys, xs = np.mgrid[0:height, 0:width]
    corner_distance = ((xs - width / 2) ** 2 + (ys - height / 2) ** 2) / ((width / 2) ** 2 + (height / 2) ** 2)
    image = radiance.reshape(height, width, 3) * (session.exposure * (1 - session.vignetting * corner_distance))[..., None]
    image = (255 * np.clip(image * colour_cast(session.lamp.kelvin), 0, 1) ** (1 / 2.2)).astype(np.float32)
    if session.blur:
        image = cv2.GaussianBlur(image, (0, 0), session.blur)
    image += rng.normal(0, session.noise, image.shape).astype(np.float32)
    return np.clip(np.round(image), 0, 255).astype(np.uint8)


def colour_cast(kelvin: int) -> np.ndarray:
    """BGR gains of a lamp of this colour temperature seen by a camera balanced for 6000 K, whose
    automatic white balance has taken out part of the difference."""
    gains = (blackbody_bgr(kelvin) / blackbody_bgr(6000)) ** 0.6
    return gains / gains[1]


def blackbody_bgr(kelvin: float) -> np.ndarray:
    """Approximate display colour of a black body (Tanner Helland's fit), BGR in 0..1."""
    t = kelvin / 100
    red = 255 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    green = 99.4708025861 * np.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    blue = 255 if t >= 66 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    return np.clip([blue, green, red], 1, 255) / 255


def render_photo(session: Session, pits: list[int], stores: list[int], rng: np.random.Generator) -> np.ndarray:
    seeds = drop_seeds(session, list(pits) + list(stores), rng)
    lights = lamp_points(session.lamp, rng)
    pixels = pixel_grid()
    radiance, labels = render_rays(session, seeds, lights, pixels)
    # Anti-aliasing where it shows: pixels on an outline (what the ray hit changes next door)
    # are traced again with four rays each, and averaged.
    width, height = FRAME_SIZE
    labels = labels.reshape(height, width)
    outline = np.zeros((height, width), np.uint8)
    outline[:, :-1] |= labels[:, :-1] != labels[:, 1:]
    outline[:-1, :] |= labels[:-1, :] != labels[1:, :]
    edges = np.flatnonzero(cv2.dilate(outline, np.ones((2, 2), np.uint8)))
    subpixels = (pixels[edges, None, :] + np.array(EDGE_SUBPIXELS)).reshape(-1, 2)
    order = np.argsort(subpixels[:, 1], kind="stable")
    sub_radiance = np.empty((len(subpixels), 3))
    sub_radiance[order] = render_rays(session, seeds, lights, subpixels[order])[0]
    radiance[edges] = sub_radiance.reshape(len(edges), len(EDGE_SUBPIXELS), 3).mean(axis=1)
    return develop(radiance, session, rng)


def render_rays(session: Session, seeds: Seeds, lights: np.ndarray, pixels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Radiance of the rays through the given frame positions (sorted by row), and a label per
    ray that changes across every outline (what kind of thing, which seed, which bowl)."""
    directions = camera_rays(session.camera, pixels)
    hits = trace(session.camera, session.board, seeds, pixels, directions)
    labels = (hits.kinds.astype(np.int64) * 100 + hits.regions + 1) * 1000 + hits.seeds + 1
    return shade(hits, directions, session, seeds, lights), labels


