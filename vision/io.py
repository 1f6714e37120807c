"""Reading image files into BGR NumPy arrays, with errors a person can act on."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from engines.errors import ArbiterError


def read_image(path: str | Path) -> np.ndarray:
    """Load an image file as an HxWx3 uint8 BGR array, or raise ArbiterError saying why not."""
    p = Path(path)
    if not p.is_file():
        raise ArbiterError(f"{p}: no such image file")
    data = np.fromfile(str(p), dtype=np.uint8)
    if data.size == 0:
        raise ArbiterError(f"{p}: the image file is empty")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise ArbiterError(f"{p}: not a readable image (JPEG or PNG expected)")
    return image


def decode_image(data: bytes) -> np.ndarray:
    """Decode image bytes (an upload, an MJPEG frame) as BGR, or raise ArbiterError."""
    if not data:
        raise ArbiterError("the image is empty")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ArbiterError("not a readable image (JPEG or PNG expected)")
    return image
