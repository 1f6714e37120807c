"""Reading image files into BGR NumPy arrays, with errors a person can act on.

An image is checked before it is decoded: a small file can declare a picture of billions of
pixels (a decompression bomb), and a cut-off JPEG decodes into a half-grey picture that would
be read as a position.
"""
from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from engines.errors import ArbiterError

# The largest picture read: a 64-megapixel phone photo. Cameras over a table give 1-12.
MAX_PIXELS = 64_000_000

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
# JPEG markers that start a frame and carry its size (baseline, progressive, lossless ...).
JPEG_FRAME_MARKERS = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
# A JPEG's end marker may be followed by a little padding; searched for in the file's last bytes.
JPEG_TAIL_BYTES = 4096


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) that a PNG or JPEG header declares, or None for other formats."""
    if data.startswith(PNG_SIGNATURE) and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if not data.startswith(JPEG_START):
        return None
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # padding between markers
            at += 1
            continue
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker in JPEG_FRAME_MARKERS:
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def check_image_bytes(data: bytes, where: str) -> None:
    """Refuse, before decoding, a picture too big to read or a JPEG cut off before its end."""
    size = declared_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise ArbiterError(f"{where}declares {size[0]}x{size[1]} pixels; at most {MAX_PIXELS // 1_000_000} "
                           "megapixels are read")
    if data.startswith(JPEG_START) and JPEG_END not in data[-JPEG_TAIL_BYTES:]:
        raise ArbiterError(f"{where}the JPEG is cut off before its end (a partly written or damaged file)")


def read_image(path: str | Path) -> np.ndarray:
    """Load an image file as an HxWx3 uint8 BGR array, or raise ArbiterError saying why not."""
    p = Path(path)
    if not p.is_file():
        raise ArbiterError(f"{p}: no such image file")
    data = p.read_bytes()
    if not data:
        raise ArbiterError(f"{p}: the image file is empty")
    check_image_bytes(data, f"{p}: ")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ArbiterError(f"{p}: not a readable image (JPEG or PNG expected)")
    return image


def decode_image(data: bytes) -> np.ndarray:
    """Decode image bytes (an upload, an MJPEG frame) as BGR, or raise ArbiterError."""
    if not data:
        raise ArbiterError("the image is empty")
    check_image_bytes(data, "the image ")
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ArbiterError("not a readable image (JPEG or PNG expected)")
    return image
