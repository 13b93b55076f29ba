"""The difference of two pictures as a heat map over the second picture dimmed.

Each pixel whose colour differs is coloured by its largest channel difference, scaled to
the largest in the picture (dark red for the smallest, through yellow, to white for the
largest), so a one-step rounding difference and a shape in another place are told apart
at a glance; :func:`heat_legend` says what the colours mean in a summary line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The unchanged picture shows through at this brightness.
DIMMED = 0.35
#: The heat map starts here (the smallest difference is still visibly red).
HEAT_FLOOR = 0.25


@dataclass(frozen=True, slots=True)
class HeatMap:
    """``image`` ``(H, W, 4)`` uint8; ``pixels_differ`` how many pixels differ in any
    channel; ``largest`` the largest channel difference (0..255)."""

    image: np.ndarray
    pixels_differ: int
    largest: int


def heat_map(first: np.ndarray, second: np.ndarray) -> HeatMap:
    """Where two ``(H, W, 4)`` uint8 pictures of one size differ."""
    delta = np.abs(first.astype(np.int16) - second.astype(np.int16)).max(axis=-1)
    largest = int(delta.max()) if delta.size else 0
    image = np.empty_like(second)
    image[..., :3] = (second[..., :3].mean(axis=-1) * DIMMED)[..., None].astype(np.uint8)
    image[..., 3] = 255
    changed = delta > 0
    if largest:
        heat = HEAT_FLOOR + (1 - HEAT_FLOOR) * delta[changed] / largest
        image[changed, :3] = np.rint(_hot(heat) * 255).astype(np.uint8)
    return HeatMap(image, int(changed.sum()), largest)


def heat_legend(largest: int) -> str:
    """The scale of a heat map whose largest difference is ``largest``."""
    return f"heat map: dark red = 1, white = {largest} of 255 in the largest channel"


def _hot(t: np.ndarray) -> np.ndarray:
    """The "hot" colour map: 0 black, 1/3 red, 2/3 yellow, 1 white, ``(..., 3)``."""
    return np.clip(3 * t[..., None] - np.array([0.0, 1.0, 2.0]), 0, 1)
