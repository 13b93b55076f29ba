"""Clipping and rasterizing triangles with NumPy, a bounded number of candidate pixels
at a time (a2xx-render.md#conventions, a2xx-render.md#coverage).

* Triangles are clipped against ``w >= W_EPSILON`` and the near and far planes of the
  target's clip volume (:class:`.conventions.Conventions`); x and y are not clipped
  (only pixels of the picture are ever tested: a guard band as wide as the picture).
* Pixel ``(i, j)`` is covered when its sample point ``(i + c, j + c)`` (``c`` the
  target's pixel centre) lies inside the triangle by the edge functions; a sample
  exactly on an edge belongs to the triangle if that edge is a *top* edge (horizontal,
  the triangle below it) or a *left* edge (the triangle to its right): the top-left
  rule of Direct3D, which Xenia's resolve code follows too, so that two triangles that
  share an edge never both cover, nor both miss, a sample on it.  Both windings are
  drawn.
* The nearer fragment wins (smaller z/w); on equal depth, the earlier triangle.
* Parameters are interpolated perspective-correctly: the screen-space barycentrics
  ``l_k`` weighted by ``1/w_k`` and normalised.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...render.clip import clip_plane
from .conventions import Conventions

#: Smallest w kept by the clipper.
W_EPSILON = 1e-6
#: Candidate pixels tested at once: bounds the working memory (about 80 bytes each).
CHUNK_PIXELS = 1 << 20
#: Bits of the depth part of a fragment's sort key (the triangle number takes 32).
_DEPTH_BITS = 31
_EMPTY = np.iinfo(np.int64).max


def clip_triangles(corners: np.ndarray, attributes: np.ndarray,
                   conventions: Conventions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clip ``corners`` ``(T, 3, 4)`` carrying ``attributes`` ``(T, 3, K)``: the pieces,
    their attributes and the number of the triangle each piece comes from."""
    planes = ((np.array([0.0, 0.0, 0.0, 1.0]), -W_EPSILON),            # w >= eps
              (np.array([0.0, 0.0, 1.0, -conventions.near]), 0.0),     # z >= near * w
              (np.array([0.0, 0.0, -1.0, 1.0]), 0.0))                  # z <= w
    source = np.arange(len(corners))
    for plane, offset in planes:
        corners, attributes, source = clip_plane(corners, attributes, source, plane, offset)
    return corners, attributes, source


@dataclass(frozen=True, slots=True)
class Raster:
    """The visible triangle of every covered pixel: ``pixels`` (flat indices ``row *
    width + column``, ascending) and ``triangles`` (indices into the clipped
    triangles).  :meth:`weights` gives the perspective-correct barycentrics."""

    size: tuple[int, int]
    centre: float
    pixels: np.ndarray
    triangles: np.ndarray
    corners: np.ndarray  # (T, 3, 2) window x, y, each triangle turned clockwise on screen
    inv_w: np.ndarray  # (T, 3) 1/w in the same corner order
    order: np.ndarray  # (T, 3) the caller's corner of each turned corner

    def weights(self, pixels: np.ndarray, triangles: np.ndarray) -> np.ndarray:
        """``(n, 3)`` perspective-correct weights of the caller's corners at the sample
        points of ``pixels``, in ``triangles``."""
        width = self.size[0]
        px = (pixels % width) + self.centre
        py = (pixels // width) + self.centre
        corner = self.corners[triangles]
        edges = np.stack([_edge(corner[:, (k + 1) % 3], corner[:, (k + 2) % 3], px, py)
                          for k in range(3)], axis=1)
        weighted = edges * self.inv_w[triangles]
        weighted /= weighted.sum(axis=1, keepdims=True)
        out = np.empty_like(weighted)
        np.put_along_axis(out, self.order[triangles], weighted, axis=1)
        return out


def _edge(a: np.ndarray, b: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """The edge function of a -> b at (px, py): positive on the inside of a triangle
    turned clockwise on screen (y down)."""
    return (b[..., 0] - a[..., 0]) * (py - a[..., 1]) - (b[..., 1] - a[..., 1]) * (px - a[..., 0])


def window(corners: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Clip-space ``(..., 4)`` -> window x, y ``(..., 2)`` (pixels, y down) and z/w."""
    width, height = size
    w = corners[..., 3]
    x = (corners[..., 0] / w + 1.0) * (width / 2)
    y = (1.0 - corners[..., 1] / w) * (height / 2)
    return np.stack([x, y], axis=-1), corners[..., 2] / w


def rasterize(corners: np.ndarray, size: tuple[int, int], conventions: Conventions,
              progress: Callable[[float], None] | None = None) -> Raster:
    """Rasterize clipped triangles ``(T, 3, 4)`` into a picture of ``size`` = (width,
    height); ``progress`` is told the fraction of candidate pixels tested."""
    corners = np.asarray(corners, dtype=np.float64)
    xy, depth = window(corners, size)
    inv_w = 1.0 / corners[..., 3]
    area = _edge(xy[:, 0], xy[:, 1], xy[:, 2, 0], xy[:, 2, 1])
    order = np.where((area < 0)[:, None], [0, 2, 1], [0, 1, 2])
    xy = np.take_along_axis(xy, order[..., None], axis=1)
    inv_w = np.take_along_axis(inv_w, order, axis=1)
    depth = np.take_along_axis(depth, order, axis=1)
    area = np.abs(area)
    best = _cover(xy, depth, area, size, conventions, progress)
    pixels = np.flatnonzero(best != _EMPTY)
    triangles = best[pixels] & 0xFFFFFFFF
    return Raster(size, conventions.centre, pixels, triangles, xy, inv_w, order)


def _pieces(xy: np.ndarray, area: np.ndarray, size: tuple[int, int], centre: float
            ) -> tuple[np.ndarray, ...]:
    """Each triangle's bounding box of sample points in the picture, cut into bands of
    rows of at most CHUNK_PIXELS: (triangle, first column, width, first row, rows)."""
    width, height = size
    lo = np.ceil(xy.min(axis=1) - centre)
    hi = np.floor(xy.max(axis=1) - centre)
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [width - 1, height - 1])
    valid = (area > 0) & np.isfinite(area) & (hi >= lo).all(axis=1)
    tris = np.flatnonzero(valid)
    lo, hi = lo[tris].astype(np.int64), hi[tris].astype(np.int64)
    box_w, box_h = hi[:, 0] - lo[:, 0] + 1, hi[:, 1] - lo[:, 1] + 1
    band = np.maximum(CHUNK_PIXELS // box_w, 1)
    count = -(-box_h // band)
    which = np.repeat(np.arange(len(tris)), count)
    k = np.arange(len(which)) - np.repeat(np.cumsum(count) - count, count)
    first_row = lo[which, 1] + k * band[which]
    rows = np.minimum(band[which], hi[which, 1] - first_row + 1)
    return tris[which], lo[which, 0], box_w[which], first_row, rows


def _edge_planes(xy: np.ndarray) -> list[np.ndarray]:
    """Per triangle, contiguous: a_k, b_k, c_k of edge k (corner k+1 to corner k+2, e_k
    = a x + b y + c, positive inside) for k = 0..2, then whether edge k owns the samples
    on it.  Top-left rule: for triangles turned clockwise on screen an edge going up
    (dy < 0) is a left edge, a horizontal one going right (dx > 0) a top edge."""
    start = xy[:, [1, 2, 0]]
    delta = xy[:, [2, 0, 1]] - start
    planes: list[np.ndarray] = []
    for k in range(3):
        dx, dy = delta[:, k, 0], delta[:, k, 1]
        planes += [-dy, dx.copy(), dy * start[:, k, 0] - dx * start[:, k, 1]]
    dx, dy = delta[..., 0], delta[..., 1]
    owns = (dy < 0) | ((dy == 0) & (dx > 0))
    return planes + [np.ascontiguousarray(owns[:, k]) for k in range(3)]


def _cover(xy: np.ndarray, depth: np.ndarray, area: np.ndarray, size: tuple[int, int],
           conventions: Conventions, progress: Callable[[float], None] | None
           ) -> np.ndarray:
    """Per pixel, the sort key (depth, then triangle number) of its nearest fragment."""
    width, height = size
    centre = conventions.centre
    tri, col, box_w, row, rows = _pieces(xy, area, size, centre)
    counts = box_w * rows
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    edges = _edge_planes(xy)
    # z/w is linear in screen space: level = dx * x + dy * y + d0 over the triangle (the
    # depth mapped to 0..1 and scaled to the key's bits).
    scale = float((1 << _DEPTH_BITS) - 1) / (1.0 - conventions.near)
    shifted = (depth - conventions.near) * scale
    safe = np.where(area > 0, area, 1.0)  # triangles of no area have no candidates
    level_plane = [sum(edges[3 * k + m] * shifted[:, k] for k in range(3)) / safe
                   for m in range(3)]
    best = np.full(width * height, _EMPTY, dtype=np.int64)
    first = 0
    while first < len(counts):
        done = int(ends[first - 1]) if first else 0
        last = max(int(np.searchsorted(ends, done + CHUNK_PIXELS, side="right")), first + 1)
        n = counts[first:last]
        piece = np.repeat(np.arange(first, last), n)
        local = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
        t = tri[piece]
        ix = col[piece] + local % box_w[piece]
        iy = row[piece] + local // box_w[piece]
        # Edge by edge, so that later edges test fewer candidates.
        for k in range(3):
            a, b, c, owns = edges[3 * k], edges[3 * k + 1], edges[3 * k + 2], edges[9 + k]
            e = a[t] * (ix + centre) + b[t] * (iy + centre) + c[t]
            inside = (e > 0) | ((e == 0) & owns[t])
            t, ix, iy = t[inside], ix[inside], iy[inside]
        level = (level_plane[0][t] * (ix + centre) + level_plane[1][t] * (iy + centre)
                 + level_plane[2][t])
        key = np.clip(level, 0.0, scale * (1.0 - conventions.near)).astype(np.int64) << 32 | t
        np.minimum.at(best, iy * width + ix, key)
        first = last
        if progress is not None and total:
            progress(int(ends[last - 1]) / total)
    return best
