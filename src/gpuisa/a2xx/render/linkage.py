"""Which vertex shader export reaches which pixel shader register
(a2xx-formats.md#xdk-linkage, a2xx-render.md#interpolation).

The GPU hands interpolator n of the vertex shader to register Rn of the pixel shader.
The XDK compiler declares, per shader, the semantic each interpolator carries (the
vertex shader's export oN, the pixel shader's register rN), and the console's Direct3D
runtime links the two shaders by those semantics, not by number.  :func:`links` says
which export each pixel shader register receives for a pair of containers;
:func:`route` reorders the interpolated values accordingly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...errors import InputError
from ..containers import Semantic


def links(vertex: Sequence[Semantic] | None, pixel: Sequence[Semantic] | None,
          names: tuple[str, str] = ("vertex shader", "pixel shader")) -> dict[int, int] | None:
    """Pixel shader register -> vertex shader export, by the semantics both shaders
    declare (``interpolators`` of each XDK container); None when either declares none
    (not a container): then export n reaches Rn."""
    if vertex is None or pixel is None:
        return None
    exports = {s.name: s.register for s in vertex}
    out = {}
    for semantic in pixel:
        if semantic.name not in exports:
            written = ", ".join(f"{s.name} in o{s.register}" for s in vertex) or "nothing"
            raise InputError(
                f"{names[1]} reads {semantic.name} (in r{semantic.register}), which "
                f"{names[0]} does not write (it writes {written}): the console's runtime "
                f"links the two by semantic; give a vertex shader that writes "
                f"{semantic.name}")
        out[semantic.register] = exports[semantic.name]
    return out


def route(params: np.ndarray, linked: Mapping[int, int] | None) -> np.ndarray:
    """``params`` ``(..., 4 k)`` (vertex shader exports 0..k-1) as the pixel shader's
    registers ``(..., 4 r)``: register r holds the export ``linked`` gives it, zeros
    where the export was not written or no export is linked."""
    if linked is None:
        return params
    count = max(linked, default=-1) + 1
    out = np.zeros((*params.shape[:-1], 4 * count), dtype=params.dtype)
    for register, export in linked.items():
        if 4 * export < params.shape[-1]:
            out[..., 4 * register:4 * register + 4] = params[..., 4 * export:4 * export + 4]
    return out
