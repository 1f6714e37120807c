"""Colour measurement for Varanasi discs: robust disc colours, lamp-neutral naming, likelihoods.

Colours are handled in OpenCV's 8-bit Lab scale (L, a, b all 0..255, a and b centred on 128), in
the camera's own colour space: the calibration photo is taken under the same lamp as the game,
so the learnt models already carry the lamp's cast. Naming the learnt clusters after the piece
set's sRGB hints needs the cast removed (`lamp_gains`); the same gains tell which way a grey
disc's colour moves as it catches more or less light under that lamp (`lamp_grey_axis`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from vision.varanasi_params import (
    COVARIANCE_FLOOR,
    GLARE_PRIOR,
    GLARE_STRENGTHS,
    LIGHTING_SPREAD_CHROMA,
    LIGHTING_SPREAD_L,
    MIN_CHROMA,
    TRIM_FRACTION,
)


def srgb_to_lab(rgb) -> np.ndarray:
    """sRGB triples (n, 3) in 0..255 -> 8-bit Lab (n, 3)."""
    rgb = np.asarray(rgb, dtype=np.float32).reshape(-1, 1, 3)
    bgr = np.clip(rgb[..., ::-1], 0, 255).astype(np.uint8)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(float)


def lab_to_srgb(lab) -> np.ndarray:
    """8-bit Lab (n, 3) -> sRGB triples (n, 3) in 0..255."""
    lab = np.clip(np.asarray(lab, dtype=float), 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB).reshape(-1, 3).astype(float)


def _srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    c = np.asarray(rgb, dtype=float) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    c = np.clip(linear, 0.0, 1.0)
    return 255.0 * np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def lamp_gains(observed_rgb: np.ndarray, hint_rgb: np.ndarray) -> np.ndarray:
    """Per-channel linear gains that undo the lamp (von Kries), from the whole set at once.

    The set's inventory is known, so the average of every disc seen must match the average of
    every hint: a grey-world assumption over the discs rather than over the unknown board.
    """
    seen = _srgb_to_linear(observed_rgb).mean(axis=0)
    wanted = _srgb_to_linear(hint_rgb).mean(axis=0)
    return wanted / np.maximum(seen, 1e-6)


def neutralise(observed_rgb: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Observed sRGB (n, 3) with the lamp's cast removed."""
    return _linear_to_srgb(_srgb_to_linear(observed_rgb) * gains)


def lamp_grey_axis(lab_means, hints_srgb) -> np.ndarray:
    """Unit Lab direction in which a grey surface grows lighter under the lamp that gave the
    set's calibrated colours `lab_means` (hints `hints_srgb`, both in the set's colour order).

    Under a tinted lamp a lighter grey also takes more of the tint: 8-bit Lab's a and b scale
    with lightness, so the lamp's greys lie on a line from black towards its white, not along
    the L axis.
    """
    gains = lamp_gains(lab_to_srgb(lab_means), np.asarray(hints_srgb, dtype=float))
    white = 1.0 / gains
    lamp_white = srgb_to_lab(_linear_to_srgb(white / white.max()))[0]
    direction = lamp_white - np.array([0.0, 128.0, 128.0])
    return direction / np.linalg.norm(direction)


def trimmed_pixels(lab_pixels: np.ndarray) -> np.ndarray:
    """Drop the brightest and darkest tails (specular glints, shaded rims) of a disc's pixels."""
    if len(lab_pixels) < 8:
        return lab_pixels
    low, high = linear_quantiles(lab_pixels[:, 0], (TRIM_FRACTION, 1.0 - TRIM_FRACTION))
    keep = (lab_pixels[:, 0] >= low) & (lab_pixels[:, 0] <= high)
    return lab_pixels[keep] if keep.sum() >= 4 else lab_pixels


def linear_quantiles(values: np.ndarray, quantiles) -> np.ndarray:
    """numpy's default quantiles (linear between the two nearest ranks), computed the same way
    to the last bit, without the overhead of `np.quantile`, which on a few hundred pixels costs
    many times the work."""
    count = len(values)
    # Quantile by quantile in Python floats (IEEE doubles, as numpy's float64): one or two
    # quantiles cost less so than as arrays.
    ranks = []  # (gamma, lower rank, upper rank) of each quantile
    for quantile in quantiles:
        virtual = (count - 1) * float(quantile)
        previous = math.floor(virtual)
        lower = min(previous, count - 1)
        ranks.append((virtual - previous, lower, min(lower + 1, count - 1)))
    # The ranks wanted, each once (a Python set: np.unique costs more than the partition here).
    ordered = np.partition(values, sorted({rank for _, *pair in ranks for rank in pair}))
    results = []
    for gamma, lower, upper in ranks:
        a, b = ordered[lower], ordered[upper]
        difference = float(b - a)  # in the values' own type, as numpy subtracts them
        results.append(float(b) - difference * (1 - gamma) if gamma >= 0.5 else float(a) + difference * gamma)
    return np.array(results)


@dataclass(frozen=True)
class ColourModel:
    """One Gaussian per colour name in Lab, learnt from that colour's calibration discs."""

    names: tuple[str, ...]
    means: np.ndarray  # (k, 3)
    whitening: np.ndarray  # (3, 3k): x @ whitening[:, 3i:3i+3] has unit covariance under colour i
    log_norms: np.ndarray  # (k,)
    glare: "GlareModel | None" = None  # when set, `log_likelihoods` allows for glare on a face

    @classmethod
    def from_profile(cls, colours: dict, tinted_greys: bool = False, glare: bool = False) -> "ColourModel":
        """The models of the profile's `colours`; with `tinted_greys`, a colour without chroma of
        its own under the lamp grows lighter along the lamp's grey axis (see `lightness_direction`);
        with `glare`, each colour may also be seen under glare (see `GlareModel`)."""
        names = tuple(colours)
        means = np.array([colours[n]["lab_mean"] for n in names], dtype=float)
        grey_axis = lamp_grey_axis(means, [colours[n]["hint_srgb"] for n in names]) if tinted_greys else None
        covariances = np.array([
            lighting_covariance(mean, np.array(colours[n]["lab_covariance"], dtype=float),
                                lightness_direction(mean, grey_axis))
            for n, mean in zip(names, means)
        ])
        whitenings, log_norms = gaussian_terms(covariances)
        return cls(names, means, np.concatenate(whitenings, axis=1), log_norms,
                   GlareModel.from_profile(colours) if glare else None)

    def distances2(self, lab: np.ndarray) -> np.ndarray:
        """(n, 3) Lab -> (k, n) squared Mahalanobis distances to each colour, a row per colour.

        Rows, not columns: a crop's labels are chosen colour by colour, and numpy works on whole
        rows several times faster than on strided columns (the product gives the same bits either
        way round)."""
        whitening, centres = self.float32_terms
        whitened = whitening.T @ np.atleast_2d(np.asarray(lab, dtype=np.float32)).T
        whitened -= centres[:, None]
        squares = whitened * whitened
        # Each colour's three squares summed by rows, in the order a product with a block matrix
        # of ones sums them (the same bits), at about 60% of its time on a crop; a sum over a
        # length-3 axis is slower still.
        distance2 = squares[0::3] + squares[1::3]
        distance2 += squares[2::3]
        return distance2

    @cached_property
    def float32_terms(self) -> tuple[np.ndarray, np.ndarray]:
        """Whitening (3, 3k) and whitened means (3k), float32 and C-ordered, once per model."""
        centres = np.einsum("ki,ikj->kj", self.means, self.whitening.reshape(3, -1, 3)).reshape(-1)
        return np.ascontiguousarray(self.whitening, dtype=np.float32), np.ascontiguousarray(centres, dtype=np.float32)

    @cached_property
    def float64_log_norms(self) -> np.ndarray:
        """`log_norms` as a C-ordered float64 array, as compiled passes take them."""
        return np.ascontiguousarray(self.log_norms, dtype=np.float64)

    def log_likelihoods(self, lab: np.ndarray) -> np.ndarray:
        """(n, 3) Lab -> (n, k) Gaussian log-likelihoods (up to a shared constant); with a glare
        model, of the colour as lit or (with the prior GLARE_PRIOR) under glare."""
        lit = (self.log_norms[:, None] - 0.5 * self.distances2(lab)).T
        if self.glare is None:
            return lit
        return np.logaddexp(lit, math.log(GLARE_PRIOR) + self.glare.log_likelihoods(lab))


@dataclass(frozen=True)
class GlareModel:
    """Each colour as glare shows it: its calibrated colour with white light added to every
    channel (`glare_path`), each point with the spread calibration saw. The path itself spans the
    lightening and the washing out that the lighting spread stands for, so that spread is not
    added again (with it, a bluish white face fitted a blue under glare)."""

    # (k, m, 3): each colour's path whitened by that colour, padded with infinitely far points
    # to the longest path (a colour without a path is all such points)
    whitened_paths: np.ndarray
    whitening: np.ndarray  # (3, 3k), as ColourModel's, from the calibrated covariances only
    log_norms: np.ndarray  # (k,)

    @classmethod
    def from_profile(cls, colours: dict) -> "GlareModel":
        whitenings, log_norms = gaussian_terms([np.array(c["lab_covariance"], dtype=float) for c in colours.values()])
        paths = [glare_path(np.array(c["lab_mean"], dtype=float)) for c in colours.values()]
        whitened = np.full((len(paths), max(1, max(map(len, paths))), 3), np.inf)
        for index, (path, whitening) in enumerate(zip(paths, whitenings)):
            whitened[index, :len(path)] = path @ whitening
        return cls(whitened, np.concatenate(whitenings, axis=1), log_norms)

    def log_likelihoods(self, lab: np.ndarray) -> np.ndarray:
        """(n, 3) Lab -> (n, k): for each colour, the log-likelihood at the best glare strength
        (−inf for a colour without a path). Each pixel is whitened on its own: BLAS's product of one
        row takes its sums in another order than a product of several rows, and a ring's colour
        must not depend on the rings weighed with it."""
        rows = np.atleast_2d(np.asarray(lab, dtype=float))
        whitened = np.concatenate([row[None] @ self.whitening for row in rows]).reshape(-1, len(self.log_norms), 1, 3)
        offsets = whitened - self.whitened_paths  # (n, k, m, 3)
        return self.log_norms - 0.5 * np.einsum("nkmc,nkmc->nkm", offsets, offsets).min(axis=2)


def gaussian_terms(covariances) -> tuple[list[np.ndarray], np.ndarray]:
    """Per covariance (3, 3): the whitening W (x @ W has unit covariance; the Cholesky factor of
    the inverse), and the Gaussian's log normaliser −½·log det, shared by every model here."""
    whitenings = [np.linalg.cholesky(np.linalg.inv(c)) for c in covariances]
    return whitenings, -0.5 * np.log(np.linalg.det(np.asarray(covariances)))


def glare_path(mean_lab: np.ndarray) -> np.ndarray:
    """The Lab colours (m, 3) of a face of calibrated colour `mean_lab` under ever stronger glare:
    white light added to every channel, clipped at full scale. Added in linear light, as physics
    has it, and in the encoded values, as a camera whose tone curve rolls each channel off on its
    own shows it (a saturated orange then turns yellow before it whitens); the truth of a real
    camera lies between, and the better fit counts. Only points with chroma left
    (MIN_CHROMA): a face washed to grey tells no colour, and a grey (black, white under a neutral
    lamp) has no path (its lightening is the lamp's grey axis already)."""
    encoded = lab_to_srgb(mean_lab)[0] / 255.0
    in_linear_light = _linear_to_srgb(_srgb_to_linear(255.0 * encoded) + GLARE_STRENGTHS[:, None])
    in_encoded_values = 255.0 * np.clip(encoded + GLARE_STRENGTHS[:, None], 0.0, 1.0)
    path = srgb_to_lab(np.concatenate([in_linear_light, in_encoded_values]))
    return path[np.hypot(path[:, 1] - 128.0, path[:, 2] - 128.0) >= MIN_CHROMA]


def lightness_direction(mean: np.ndarray, grey_axis: np.ndarray | None) -> np.ndarray:
    """The Lab direction in which a colour grows lighter or darker with the light on it.

    Along the lamp's `grey_axis` (see `lamp_grey_axis`) for a colour without chroma of its own
    under that lamp (within MIN_CHROMA of the lamp's grey of its lightness: black, white), which
    takes more or less of the lamp's tint as it does; along L for any other, and for every colour
    when no grey axis is given.
    """
    if grey_axis is not None:
        lamp_grey = 128.0 + grey_axis[1:] / grey_axis[0] * mean[0]
        if np.linalg.norm(mean[1:] - lamp_grey) < MIN_CHROMA:
            return grey_axis
    return np.array([1.0, 0.0, 0.0])


def lighting_covariance(mean: np.ndarray, covariance: np.ndarray, lightness: np.ndarray) -> np.ndarray:
    """A calibrated colour covariance widened for the lighting changes met during play, lighter
    and darker along the unit Lab direction `lightness`."""
    widened = covariance + LIGHTING_SPREAD_L ** 2 * np.outer(lightness, lightness)
    chroma = mean[1:] - 128.0
    if np.linalg.norm(chroma) >= MIN_CHROMA:
        direction = np.concatenate([[0.0], chroma / np.linalg.norm(chroma)])
        widened += LIGHTING_SPREAD_CHROMA ** 2 * np.outer(direction, direction)
    return widened


def colour_moments(lab_pixels: np.ndarray, floor: float = COVARIANCE_FLOOR) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance (with a noise floor) of a colour's pixels, as arrays (a model used at
    once needs no readable form, which costs more than the pixels of a crop's border)."""
    return moments_of(trimmed_pixels(np.asarray(lab_pixels, dtype=float)), floor)


def moments_of(pixels: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """`colour_moments` of pixels already trimmed (float64, (n, 3))."""
    mean = np.add.reduce(pixels, axis=0) / len(pixels)  # what `mean` computes, without its overhead
    centred = pixels - mean
    return mean, centred.T @ centred / max(1, len(pixels) - 1) + floor * np.eye(3)


def colour_statistics(lab_pixels: np.ndarray, floor: float = COVARIANCE_FLOOR) -> dict:
    """Readable mean and covariance (with a noise floor) of a colour's pixels."""
    mean, covariance = colour_moments(lab_pixels, floor)
    return {
        "lab_mean": [round(float(v), 2) for v in mean],
        "lab_covariance": [[round(float(v), 3) for v in row] for row in covariance],
    }
