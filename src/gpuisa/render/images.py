"""Pictures for the rasterizers: their size, textures read and pictures written with
Pillow (``pip install 'gpuisa[render]'``, imported only when needed)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np

from ..datafiles import read_input
from ..errors import InputError

#: The largest picture side rendered (bounds the per-pixel working memory).
MAX_SIDE = 8192


def check_size(size: Sequence[int]) -> tuple[int, int]:
    """``size`` as (width, height), each 1..MAX_SIDE pixels."""
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise InputError(f"size must be (width, height), got {size!r}") from None
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise InputError(f"size must be 1..{MAX_SIDE} pixels each way, got {width}x{height}")
    return width, height


def load_texture(path: str) -> np.ndarray:
    """An image file as ``(h, w, 4)`` uint8."""
    image_module = pillow()
    data = read_input(path)
    try:
        with image_module.open(io.BytesIO(data)) as picture:
            return np.asarray(picture.convert("RGBA"))
    except Exception as error:
        raise InputError(f"{path}: cannot read the texture image: {error}") from None


def pillow():
    """PIL.Image, or an error saying how to install it."""
    try:
        from PIL import Image
    except ImportError:
        raise InputError("writing and reading images needs Pillow: pip install "
                         "'gpuisa[render]'") from None
    return Image


def png_bytes(image: np.ndarray, *, optimize: bool = True) -> bytes:
    """An ``(H, W, 4)`` uint8 RGBA picture as PNG; ``optimize`` makes the file smaller
    and the encoding several times slower (a large picture may prefer speed)."""
    buffer = io.BytesIO()
    pillow().fromarray(image, "RGBA").save(buffer, format="PNG", optimize=optimize)
    return buffer.getvalue()
