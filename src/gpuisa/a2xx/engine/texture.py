"""Texture fetches (a2xx-isa.md#texture-fetch, a2xx-isa.md#fetch-execution): nearest or bilinear
sampling of a 2D texel array.

The texture fetch constant is not modelled: the caller gives each texture fetch constant
(0-31) as a :class:`Texture` holding decoded texel values.  Only the base level is
sampled (no mipmaps, LOD, gradients or anisotropy); coordinates are normalized unless the
fetch sets ``tx_coord_denorm``; the fetch's texel offsets apply.  The filter is the
fetch's mag filter, or the texture's own when the fetch defers to the fetch constant.
Fetches this cannot emulate (other texture opcodes, fetch constants without a texture)
write zeros and are listed in the run's ``unsupported_fetches``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from .. import isa
from ..encoding import TextureFetch
from .floatops import F32
from .state import BatchState, Lanes, lane_count

FILTERS: tuple[str, ...] = ("nearest", "linear")
ADDRESS_MODES: tuple[str, ...] = ("clamp", "wrap")


@dataclass(frozen=True, eq=False)
class Texture:
    """Texel values ``data`` of shape (height, width, 4); row 0 is v = 0."""

    data: np.ndarray
    filter: str = "linear"  # used when the fetch says "use the fetch constant"
    address: str = "clamp"  # "clamp" (to the edge texel) or "wrap"

    def __post_init__(self) -> None:
        try:
            data = np.asarray(self.data, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise InputError(f"texture data must be numbers: {exc}") from None
        if data.ndim != 3 or data.shape[2] != 4 or data.shape[0] < 1 or data.shape[1] < 1:
            raise InputError(f"texture data must have shape (height, width, 4), got {data.shape}")
        if self.filter not in FILTERS:
            raise InputError(f"texture filter must be 'nearest' or 'linear', not {self.filter!r}")
        if self.address not in ADDRESS_MODES:
            raise InputError(
                f"texture address mode must be 'clamp' or 'wrap', not {self.address!r}"
            )
        object.__setattr__(self, "data", data)


def _texel_index(i: np.ndarray, size: int, address: str) -> np.ndarray:
    return np.mod(i, size) if address == "wrap" else np.clip(i, 0, size - 1)


def sample(texture: Texture, x: np.ndarray, y: np.ndarray, linear: bool) -> np.ndarray:
    """(4, n) texels at texel-space coordinates ``x``, ``y`` (texel centres at i + 0.5)."""
    height, width = texture.data.shape[:2]
    x = np.where(np.isfinite(x), x, 0).astype(np.float64)
    y = np.where(np.isfinite(y), y, 0).astype(np.float64)

    def texel(ix: np.ndarray, iy: np.ndarray) -> np.ndarray:
        tx = _texel_index(ix, width, texture.address)
        ty = _texel_index(iy, height, texture.address)
        return texture.data[ty, tx].T.astype(np.float64)

    if not linear:
        out = texel(np.floor(x).astype(np.int64), np.floor(y).astype(np.int64))
        return out.astype(np.float32)
    fx, fy = x - 0.5, y - 0.5
    x0, y0 = np.floor(fx), np.floor(fy)
    tx, ty = fx - x0, fy - y0
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    top = texel(x0, y0) * (1 - tx) + texel(x0 + 1, y0) * tx
    bottom = texel(x0, y0 + 1) * (1 - tx) + texel(x0 + 1, y0 + 1) * tx
    return (top * (1 - ty) + bottom * ty).astype(np.float32)


def execute_texture_fetch(
    instr: TextureFetch,
    slot_index: int,
    state: BatchState,
    lanes: Lanes,
    loop_address: int,
) -> np.ndarray | None:
    """The (4, n) result of a texture fetch, or None for the ops without one."""
    if not instr.info.has_result:
        return None  # TEX_SET_*: they only steer LOD selection, which is not modelled
    n = lane_count(lanes, state.count)
    texture = state.constants.textures.get(instr.const_idx)
    if instr.opcode != isa.FetchOpcode.TEX_FETCH or texture is None:
        state.unsupported_fetches.add(slot_index)
        return np.zeros((4, n), dtype=np.float32)
    src = state.read_temp(instr.src_reg + (loop_address if instr.src_reg_am else 0), lanes)
    u, v = (src[(instr.src_swiz >> (2 * i)) & 3] for i in range(2))
    height, width = texture.data.shape[:2]
    if not instr.tx_coord_denorm:
        u, v = u * F32(width), v * F32(height)
    offset_width = isa.TEXTURE_FETCH_LAYOUT["offset_x"].width
    u = u + F32(isa.sign_extend(instr.offset_x, offset_width) / isa.TEXEL_OFFSET_DIVISOR)
    v = v + F32(isa.sign_extend(instr.offset_y, offset_width) / isa.TEXEL_OFFSET_DIVISOR)
    if instr.mag_filter == isa.TexFilter.USE_FETCH_CONST:
        linear = texture.filter == "linear"
    else:
        linear = instr.mag_filter == isa.TexFilter.LINEAR
    return sample(texture, u, v, linear)
