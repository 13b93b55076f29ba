"""The same scene in float24 and float32: both pictures and where they differ.

The difference picture is the heat map of :mod:`gpuisa.render.heat` (each differing
pixel coloured by its largest channel difference, scaled to the largest in the picture);
vertices whose screen position moved by half a pixel or more are boxed (when they are
few enough not to hide the picture).  The summary line gives the scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...render.heat import heat_legend, heat_map
from .shade import Frame

#: Colour of the boxes around vertices that moved.
MOVED_VERTEX = (0, 255, 255)
#: A vertex is boxed when its screen position moved by this many pixels or more (less
#: does not change which pixels it covers by much: a box for every vertex of a mesh
#: whose positions differ by 0.002 px would hide the picture).
MOVED_PIXELS = 0.5
#: More moved vertices than this are counted but not boxed (their boxes would hide the
#: picture: the particles example moves 1560).
MAX_BOXES = 64


@dataclass(frozen=True, slots=True)
class Comparison:
    """``vertices``: output vertices compared (both runs' common count; a geometry
    shader may emit different numbers); ``vertices_differ``: of those, how many differ
    in any position or attribute bit; ``max_position_error``: the largest distance in
    pixels between a vertex's two screen positions (nan if none is finite)."""

    first: Frame
    second: Frame
    difference: np.ndarray
    pixels_differ: int
    vertices: tuple[int, int]
    vertices_differ: int
    max_position_error: float
    max_pixel_difference: int = 0
    vertices_moved: int = 0

    def summary(self, names: tuple[str, str] = ("f24", "f32")) -> str:
        a, b = self.vertices
        counts = (f"{a} vertices" if a == b else
                  f"{a} vertices in {names[0]}, {b} in {names[1]} (the first {min(a, b)} "
                  f"compared)")
        error = ("n/a" if np.isnan(self.max_position_error)
                 else f"{self.max_position_error:.4g} px")
        boxed = ("boxed in cyan" if self.vertices_moved <= MAX_BOXES
                 else f"too many to box (> {MAX_BOXES})")
        legend = (f" ({heat_legend(self.max_pixel_difference)}; {self.vertices_moved} "
                  f"vertices moved >= {MOVED_PIXELS} px, {boxed})"
                  if self.pixels_differ or self.vertices_moved else "")
        return (f"{counts}: {self.vertices_differ} differ; max position error {error}; "
                f"{self.pixels_differ} pixels differ{legend}")


def compare_frames(first: Frame, second: Frame) -> Comparison:
    """Compare two pictures of one scene, made with different precisions or engines."""
    first_outputs, second_outputs = _outputs(first), _outputs(second)
    count = min(len(first_outputs), len(second_outputs))
    a, b = first_outputs[:count], second_outputs[:count]
    differ = ((a != b) & ~(np.isnan(a) & np.isnan(b))).any(axis=1)
    error = np.linalg.norm(first.screen[:count, :2] - second.screen[:count, :2], axis=1)
    finite = error[np.isfinite(error)]
    max_error = float(finite.max()) if len(finite) else float("nan")

    heat = heat_map(first.image, second.image)
    image = heat.image
    moved = differ & (error >= MOVED_PIXELS)
    if moved.sum() <= MAX_BOXES:
        for x, y in second.screen[:count][moved, :2]:
            if np.isfinite(x) and np.isfinite(y):
                _box(image, int(np.floor(x)), int(np.floor(y)))
    return Comparison(first, second, image, heat.pixels_differ, (len(first_outputs),
                      len(second_outputs)), int(differ.sum()), max_error, heat.largest,
                      int(moved.sum()))


def _box(image: np.ndarray, col: int, row: int) -> None:
    """The outline of a 5x5 square around pixel (col, row), clipped to the image."""
    height, width = image.shape[:2]
    top, bottom, left, right = row - 2, row + 2, col - 2, col + 2
    for r in (top, bottom):
        if 0 <= r < height:
            image[r, max(left, 0):max(right + 1, 0), :3] = MOVED_VERTEX
    for c in (left, right):
        if 0 <= c < width:
            image[max(top, 0):max(bottom + 1, 0), c, :3] = MOVED_VERTEX


def _outputs(frame: Frame) -> np.ndarray:
    """Every vertex's position and attributes side by side, ``(M, k)``."""
    scene = frame.scene
    return np.concatenate([scene.positions, *scene.attributes.values()], axis=1)
