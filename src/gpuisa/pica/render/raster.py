"""Clipping and rasterization of triangles with NumPy over all candidate pixels.

Conventions (PICA200, as citro3d sets it up and Azahar's clipper clips):

* clip volume: ``-w <= x, y <= w`` and ``-w <= z <= 0`` with ``w > 0`` (citro3d's
  projection helpers map depth to [-1, 0]: near plane -1, far plane 0, so the nearer of
  two fragments has the smaller z/w);
* x and y are not clipped geometrically: only pixels inside the image are evaluated (a
  guard band); triangles are clipped against the near and far planes and ``w = eps``;
* normalized device coordinates map to the image as in OpenGL: x = -1 is the left edge,
  y = +1 the top edge; pixel (i, j) is sampled at its centre (i + 0.5, j + 0.5);
* coverage uses edge functions with a tie rule that gives a pixel centre lying exactly on
  an edge shared by two triangles to exactly one of them; both windings are drawn;
* depth test: the smaller z/w wins, on equal depth the earlier triangle;
* attributes are interpolated perspective-correctly (weights ``l_i / w_i``), depth
  linearly in screen space.

With ``tilt`` the image is rotated back by the quarter turn that citro3d's ``*Tilt``
projection helpers build in (their first row reads view y, their second minus view x).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...render.clip import clip_plane

#: Smallest w kept by the clipper (Azahar's clipper clips against a small positive w).
W_EPSILON = 1e-5
#: Candidate pixels evaluated at once: bounds the working memory (about 100 bytes each).
CHUNK_PIXELS = 1 << 21

# Clip planes as (a, b, c, d): a point is inside where a*x + b*y + c*z + d*w >= 0.
_PLANES = (
    (0.0, 0.0, 1.0, 1.0),   # z >= -w (near)
    (0.0, 0.0, -1.0, 0.0),  # z <= 0 (far)
)


def clip_triangles(corners: np.ndarray, attributes: np.ndarray, source: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clip triangles ``corners`` ``(T, 3, 4)`` (clip space) carrying ``attributes``
    ``(T, 3, K)`` against w = eps and the near and far planes.  ``source`` ``(T,)`` is
    carried along to each piece.  Returns the pieces in the same order (a triangle cut
    into two gives two consecutive triangles)."""
    planes = [np.array([0.0, 0.0, 0.0, 1.0]), *map(np.array, _PLANES)]
    offsets = [-W_EPSILON, 0.0, 0.0]
    for plane, offset in zip(planes, offsets, strict=True):
        corners, attributes, source = clip_plane(corners, attributes, source, plane, offset)
    return corners, attributes, source


def to_screen(corners: np.ndarray, size: tuple[int, int], tilt: bool = False) -> np.ndarray:
    """Clip-space ``(..., 4)`` -> ``(..., 3)`` image x, y (pixels) and depth z/w."""
    width, height = size
    w = corners[..., 3]
    x, y = corners[..., 0] / w, corners[..., 1] / w
    if tilt:
        x, y = -y, x
    return np.stack([(x + 1) * (width / 2), (1 - y) * (height / 2), corners[..., 2] / w],
                    axis=-1)


@dataclass(frozen=True, slots=True)
class Raster:
    """The visible triangle at every pixel.  ``triangle`` ``(H, W)`` is -1 where nothing
    was drawn; for drawn pixels ``weights`` ``(H, W, 3)`` are the perspective-correct
    barycentric weights of the triangle's corners, ``depth`` the z/w there and
    ``edge_distance`` the distance in pixels to the nearest edge of the triangle."""

    triangle: np.ndarray
    weights: np.ndarray
    depth: np.ndarray
    edge_distance: np.ndarray

    def interpolate(self, attributes: np.ndarray) -> np.ndarray:
        """``attributes`` ``(T, 3, K)`` at every pixel: ``(H, W, K)``, 0 where empty."""
        height, width = self.triangle.shape
        out = np.zeros((height, width, attributes.shape[-1]), dtype=np.float64)
        drawn = self.triangle >= 0
        corners = attributes[self.triangle[drawn]]  # (n, 3, K)
        out[drawn] = np.einsum("nc,nck->nk", self.weights[drawn], corners)
        return out


def rasterize(corners: np.ndarray, size: tuple[int, int], *, tilt: bool = False) -> Raster:
    """Rasterize triangles ``(T, 3, 4)`` in clip space (already clipped in z and w) into
    an image of ``size`` = (width, height) pixels."""
    width, height = size
    corners = np.asarray(corners, dtype=np.float64)
    screen = to_screen(corners, size, tilt)  # (T, 3, 3)
    area = _edge(screen[:, 0], screen[:, 1], screen[:, 2, :2])
    # One orientation for all: swapping corners 1 and 2 of the others keeps the pixel
    # coverage and lets one tie rule serve every triangle.
    flipped = area < 0
    order = np.where(flipped[:, None], [0, 2, 1], [0, 1, 2])
    screen = np.take_along_axis(screen, order[..., None], axis=1)
    inv_w = 1.0 / np.take_along_axis(corners[..., 3], order, axis=1)
    area = np.abs(area)

    lo = np.ceil(screen[..., :2].min(axis=1) - 0.5)
    hi = np.floor(screen[..., :2].max(axis=1) - 0.5)
    lo = np.maximum(lo, 0)
    hi = np.minimum(hi, [width - 1, height - 1])
    valid = (area > 0) & np.isfinite(area) & (hi >= lo).all(axis=1)
    extent = np.where(valid[:, None], hi - lo + 1, 0).astype(np.int64)
    counts = extent[:, 0] * extent[:, 1]

    triangles = _Triangles(counts, extent, lo, screen, inv_w, area)
    pixels = width * height
    best = _Winners(np.full(pixels, np.iinfo(np.int64).max, dtype=np.int64),
                    np.full(pixels, -1, dtype=np.int64), np.zeros((pixels, 3)),
                    np.zeros(pixels), np.zeros(pixels))

    ends = np.cumsum(counts)
    start = 0
    while start < len(counts):
        # Triangles whose candidates fit in one chunk (at least one triangle).
        stop = max(int(np.searchsorted(ends, (ends[start - 1] if start else 0) + CHUNK_PIXELS,
                                       side="right")), start + 1)
        tris = np.arange(start, stop)
        tris = tris[counts[tris] > 0]
        if len(tris):
            _chunk(tris, triangles, width, best)
        start = stop
    best_tri, weights = best.triangle, best.weights
    shape = (height, width)
    # Weights were computed for the reordered corners: back to the caller's order.
    drawn = best_tri >= 0
    back = order[best_tri[drawn]]
    unordered = weights[drawn]
    fixed = np.empty_like(unordered)
    np.put_along_axis(fixed, back, unordered, axis=1)
    weights[drawn] = fixed
    return Raster(best_tri.reshape(shape).astype(np.int32), weights.reshape(*shape, 3),
                  best.depth.reshape(shape), best.edge_distance.reshape(shape))


@dataclass(frozen=True, slots=True)
class _Triangles:
    """The triangles in screen space, corners reordered to one orientation: the candidate
    pixels of each (``counts`` of the box ``extent`` from ``lo``), the screen corners,
    their 1/w and the triangles' doubled areas."""

    counts: np.ndarray
    extent: np.ndarray
    lo: np.ndarray
    screen: np.ndarray
    inv_w: np.ndarray
    area: np.ndarray


@dataclass(frozen=True, slots=True)
class _Winners:
    """Per pixel, what the nearest triangle so far left (the arrays change in place): its
    depth key and index, weights, depth and distance to its nearest edge."""

    key: np.ndarray
    triangle: np.ndarray
    weights: np.ndarray
    depth: np.ndarray
    edge_distance: np.ndarray


def _edge(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Twice the signed area of (a, b, p) in image coordinates (y down)."""
    return (b[..., 0] - a[..., 0]) * (p[..., 1] - a[..., 1]) - (
        b[..., 1] - a[..., 1]) * (p[..., 0] - a[..., 0])


def _chunk(tris: np.ndarray, triangles: _Triangles, width: int, best: _Winners) -> None:
    """Draws triangles ``tris`` into ``best`` (the depth test against what is there)."""
    counts, extent, lo = triangles.counts, triangles.extent, triangles.lo
    screen, inv_w, area = triangles.screen, triangles.inv_w, triangles.area
    best_key, best_tri = best.key, best.triangle
    n = counts[tris]
    tri = np.repeat(tris, n)
    first = np.cumsum(n) - n
    local = np.arange(int(n.sum())) - np.repeat(first, n)
    bw = extent[tri, 0]
    ix = lo[tri, 0].astype(np.int64) + local % bw
    iy = lo[tri, 1].astype(np.int64) + local // bw
    # Edge k is the one opposite corner k; e_k = a*x + b*y + c at pixel centres.  The
    # candidates are filtered edge by edge, so later edges cost less.
    e = []
    for k in range(3):
        a, b, c, own = _edge_coefficients(screen, (k + 1) % 3, (k + 2) % 3)
        value = a[tri] * (ix + 0.5) + b[tri] * (iy + 0.5) + c[tri]
        keep = (value > 0) | ((value == 0) & own[tri])
        tri, ix, iy, value = tri[keep], ix[keep], iy[keep], value[keep]
        e = [v[keep] for v in e] + [value]
    if not len(tri):
        return
    lam = np.stack(e, axis=1) / area[tri][:, None]
    z = (lam * screen[tri, :, 2]).sum(axis=1)
    pixel = iy * width + ix
    # Depth in [-1, 0] (clipped) quantized to 31 bits: nearer = smaller key.
    quantized = np.clip((z + 1.0) * float(1 << 31), 0, (1 << 31) - 1).astype(np.int64)
    sort = np.argsort(pixel << 32 | quantized, kind="stable")  # ties: triangle order
    pixel = pixel[sort]
    first_of_pixel = np.ones(len(pixel), dtype=bool)
    first_of_pixel[1:] = pixel[1:] != pixel[:-1]
    win = sort[first_of_pixel]
    pixel = pixel[first_of_pixel]
    key = quantized[win]
    better = key < best_key[pixel]  # ties: earlier chunks drew earlier triangles
    win, pixel = win[better], pixel[better]
    best_key[pixel] = key[better]
    winner = tri[win]
    best_tri[pixel] = winner
    perspective = lam[win] * inv_w[winner]
    best.weights[pixel] = perspective / perspective.sum(axis=1, keepdims=True)
    best.depth[pixel] = z[win]
    s = screen[winner, :, :2]
    lengths = np.stack([np.hypot(*(s[:, 2] - s[:, 1]).T), np.hypot(*(s[:, 0] - s[:, 2]).T),
                        np.hypot(*(s[:, 1] - s[:, 0]).T)], axis=1)
    edges = np.stack([v[win] for v in e], axis=1)
    best.edge_distance[pixel] = (edges / np.maximum(lengths, 1e-12)).min(axis=1)


def _edge_coefficients(screen: np.ndarray, i: int, j: int):
    """a, b, c of the edge function of corners i -> j (``(b.x - a.x)(p.y - a.y) -
    (b.y - a.y)(p.x - a.x)`` as a*x + b*y + c) and whether the edge keeps pixel centres
    lying exactly on it: with one orientation for all triangles, two triangles sharing
    an edge run it in opposite directions, so exactly one of them owns it."""
    ax, ay = screen[:, i, 0], screen[:, i, 1]
    dx, dy = screen[:, j, 0] - ax, screen[:, j, 1] - ay
    own = (dy > 0) | ((dy == 0) & (dx < 0))
    return -dy, dx, dy * ax - dx * ay, own
