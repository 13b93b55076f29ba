"""The same scene in float24 and float32: both pictures and where they differ."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .shade import Frame

#: Colours of the difference image: differing pixels, markers of differing vertices.
DIFFERENT_PIXEL = (255, 0, 255)
DIFFERENT_VERTEX = (255, 255, 0)
#: The unchanged picture shows through at this brightness.
DIMMED = 0.35


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

    def summary(self, names: tuple[str, str] = ("f24", "f32")) -> str:
        a, b = self.vertices
        counts = (f"{a} vertices" if a == b else
                  f"{a} vertices in {names[0]}, {b} in {names[1]} (the first {min(a, b)} "
                  f"compared)")
        error = ("n/a" if np.isnan(self.max_position_error)
                 else f"{self.max_position_error:.4g} px")
        return (f"{counts}: {self.vertices_differ} differ; max position error {error}; "
                f"{self.pixels_differ} pixels differ")


def compare_frames(first: Frame, second: Frame) -> Comparison:
    """Compare two pictures of one scene, made with different precisions or engines."""
    first_outputs, second_outputs = _outputs(first), _outputs(second)
    count = min(len(first_outputs), len(second_outputs))
    a, b = first_outputs[:count], second_outputs[:count]
    differ = ((a != b) & ~(np.isnan(a) & np.isnan(b))).any(axis=1)
    error = np.linalg.norm(first.screen[:count, :2] - second.screen[:count, :2], axis=1)
    finite = error[np.isfinite(error)]
    max_error = float(finite.max()) if len(finite) else float("nan")

    changed = (first.image != second.image).any(axis=-1)
    grey = second.image[..., :3].mean(axis=-1) * DIMMED
    image = np.empty_like(second.image)
    image[..., :3] = grey[..., None].astype(np.uint8)
    image[..., 3] = 255
    image[changed, :3] = DIFFERENT_PIXEL
    for x, y in second.screen[:count][differ, :2]:
        if np.isfinite(x) and np.isfinite(y):
            col, row = int(np.floor(x)), int(np.floor(y))
            image[max(row - 1, 0):max(row + 2, 0), max(col - 1, 0):max(col + 2, 0),
                  :3] = DIFFERENT_VERTEX
    return Comparison(first, second, image, int(changed.sum()), (len(first_outputs),
                      len(second_outputs)), int(differ.sum()), max_error)


def _outputs(frame: Frame) -> np.ndarray:
    """Every vertex's position and attributes side by side, ``(M, k)``."""
    scene = frame.scene
    return np.concatenate([scene.positions, *scene.attributes.values()], axis=1)
