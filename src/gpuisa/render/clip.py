"""Clipping triangles against one plane of clip space, for the rasterizers of both ISAs
(each has its own clip volume)."""

from __future__ import annotations

import numpy as np


def clip_plane(corners: np.ndarray, attributes: np.ndarray, source: np.ndarray,
               plane: np.ndarray, offset: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clip triangles ``corners`` ``(T, 3, 4)`` (clip space) carrying ``attributes``
    ``(T, 3, K)`` and ``source`` ``(T,)`` against the half-space ``corner @ plane +
    offset >= 0``.  A triangle cut into two gives two consecutive triangles; the
    pieces keep their triangle's order and winding, and attributes are interpolated
    linearly in clip space (which is perspective-correct)."""
    distance = corners @ plane + offset  # (T, 3)
    inside = distance >= 0
    count = inside.sum(axis=1)
    keep = count == 3
    if keep.all():
        return corners, attributes, source
    one = np.flatnonzero(count == 1)
    two = np.flatnonzero(count == 2)
    pieces = [(np.flatnonzero(keep), corners[keep], attributes[keep])]
    # Rotate each cut triangle (keeping its winding) so that corner 0 is the odd one
    # out: the one inside (count 1) or the one outside (count 2).
    for rows, odd in ((one, inside), (two, ~inside)):
        if not len(rows):
            continue
        first = np.argmax(odd[rows], axis=1)
        order = (first[:, None] + np.arange(3)) % 3
        p = np.take_along_axis(corners[rows], order[..., None], axis=1)
        a = np.take_along_axis(attributes[rows], order[..., None], axis=1)
        d = np.take_along_axis(distance[rows], order, axis=1)
        t1 = (d[:, 0] / (d[:, 0] - d[:, 1]))[:, None]
        t2 = (d[:, 0] / (d[:, 0] - d[:, 2]))[:, None]
        p01 = p[:, 0] + t1 * (p[:, 1] - p[:, 0])
        p02 = p[:, 0] + t2 * (p[:, 2] - p[:, 0])
        a01 = a[:, 0] + t1 * (a[:, 1] - a[:, 0])
        a02 = a[:, 0] + t2 * (a[:, 2] - a[:, 0])
        if rows is one:  # the inside corner and the two cut points
            pieces.append((rows, np.stack([p[:, 0], p01, p02], 1),
                           np.stack([a[:, 0], a01, a02], 1)))
        else:  # a quad: cut point 01, corners 1 and 2, cut point 02
            pieces.append((rows, np.stack([p01, p[:, 1], p[:, 2]], 1),
                           np.stack([a01, a[:, 1], a[:, 2]], 1)))
            pieces.append((rows + 0.5, np.stack([p01, p[:, 2], p02], 1),
                           np.stack([a01, a[:, 2], a02], 1)))
    order = np.argsort(np.concatenate([rows for rows, _, _ in pieces]), kind="stable")
    rows = np.concatenate([rows for rows, _, _ in pieces]).astype(np.int64)[order]
    return (np.concatenate([c for _, c, _ in pieces])[order],
            np.concatenate([a for _, _, a in pieces])[order], source[rows])
