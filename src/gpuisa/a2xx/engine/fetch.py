"""Vertex fetch (a2xx-isa.md#vertex-fetch, a2xx-isa.md#formats, a2xx-isa.md#fetch-execution): read,
unpack and write one element per invocation.

Address (XE-I): element = fetch constant start + stride * floor(index [+ 0.5]); the
dwords read start at element + offset.  Stride and offset count bytes or dwords
(:class:`~.config.EmulatorConfig` ``address_unit``).  Dwords outside the fetch
constant's range read as 0.  Components a format does not have read as 0.0; then every
component is scaled by 2^exp_adjust, and the destination swizzle picks x/y/z/w, 0.0,
1.0 or keeps the register's component.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError
from .. import isa
from ..encoding import VertexFetch
from ..isa import VertexDataKind
from .config import EmulatorConfig
from .floatops import F32, half_to_float
from .inputs import BoundBuffer
from .state import BatchState, Lanes, lane_count

_OUT_OF_RANGE = np.int64(-(1 << 62))
# Destination selectors (a2xx-isa.md#swizzles): "xyzw01?_"
_ONE = isa.FETCH_DST_CHARS.index("1")
_KEEP = isa.FETCH_DST_CHARS.index("_")
_BYTE_SHIFTS = np.array([0, 8, 16, 24], dtype=np.uint32)


def fetch_slot(instr: VertexFetch) -> int:
    return instr.const_index * isa.VERTEX_CONSTANTS_PER_GROUP + instr.const_index_sel


def vertex_offset(instr: VertexFetch, config: EmulatorConfig) -> int:
    """The offset field: M-H's 22 unsigned bits, or Xenia's signed 23 bits
    (a2xx-isa.md#vertex-fetch)."""
    if not config.wide_addresses:
        return instr.offset
    # Xenia's field continues into reserved bits above M-H's 22-bit one.
    field = isa.VERTEX_FETCH_LAYOUT["offset"]
    width = isa.XENIA_VERTEX_OFFSET_BITS
    high = (instr.reserved >> (field.lsb + field.width)) & ((1 << (width - field.width)) - 1)
    return isa.sign_extend(instr.offset | high << field.width, width)


def _buffer(state: BatchState, slot: int, where: str) -> BoundBuffer:
    buffer = state.constants.fetch.get(slot)
    if buffer is None:
        group, sel = divmod(slot, isa.VERTEX_CONSTANTS_PER_GROUP)
        raise InputError(
            f"{where} reads vertex fetch constant {slot} (CONST({group}, {sel})), but no "
            "vertex buffer is bound to it"
        )
    return buffer


def _swap(words: np.ndarray, endian: int) -> np.ndarray:
    if endian == isa.Endian.E8IN16:
        return ((words & 0x00FF00FF) << 8) | ((words >> 8) & 0x00FF00FF)
    if endian == isa.Endian.E8IN32:
        return words.byteswap()
    if endian == isa.Endian.E16IN32:
        return (words << 16) | (words >> 16)
    return words


def _read_dwords(buffer: BoundBuffer, address: np.ndarray) -> np.ndarray:
    inside = (address >= buffer.start) & (address + 4 <= buffer.end)
    base = np.where(inside, address, 0)
    raw = buffer.data[base[:, None] + np.arange(4)].astype(np.uint32)
    words = np.bitwise_or.reduce(raw << _BYTE_SHIFTS, axis=1).astype(np.uint32)
    return np.where(inside, _swap(words, buffer.endian), np.uint32(0))


def _unpack(instr: VertexFetch, dwords: list[np.ndarray], config: EmulatorConfig) -> np.ndarray:
    info = isa.VERTEX_FORMAT_INFO[isa.SurfaceFormat(instr.format)]
    n = len(dwords[0])
    result = np.zeros((4, n), dtype=np.float32)
    signed = bool(instr.format_comp_all)
    normalized = not instr.num_format_all
    for i, (dword, lsb, width) in enumerate(info.components):
        word = dwords[dword]
        if info.kind is VertexDataKind.FLOAT:
            result[i] = word.view(np.float32)
            continue
        raw = (word.astype(np.int64) >> lsb) & ((1 << width) - 1)
        if info.kind is VertexDataKind.HALF:
            result[i] = half_to_float(raw, xenos=config.half_floats == "xenos")
            continue
        if signed:
            raw = np.where(raw >= 1 << (width - 1), raw - (1 << width), raw)
        value = raw.astype(np.float32)
        if normalized and signed and instr.signed_rf_mode_all:
            # "no zero" (GL): (v + 0.5) * 2 / (2^w - 1)
            value = (value + F32(0.5)) * F32(2.0) / F32((1 << width) - 1)
        elif normalized and signed:
            # "zero, clamp minus one" (D3D): v / (2^(w-1) - 1), at least -1
            value = np.maximum(value / F32((1 << (width - 1)) - 1), F32(-1.0))
        elif normalized:
            value = value / F32((1 << width) - 1)
        result[i] = value
    exp_width = isa.VERTEX_FETCH_LAYOUT["exp_adjust_all"].width
    exp_adjust = isa.sign_extend(instr.exp_adjust_all, exp_width)
    if exp_adjust:
        result = np.ldexp(result, exp_adjust).astype(np.float32)
    return result


def execute_vertex_fetch(
    instr: VertexFetch,
    slot_index: int,
    state: BatchState,
    lanes: Lanes,
    loop_address: int,
    config: EmulatorConfig,
) -> None:
    where = f"vertex fetch in slot {slot_index}"
    n = lane_count(lanes, state.count)
    unit = config.address_bytes
    if config.mini_fetch and instr.is_mini_fetch:
        slots = state.fetch_slot[lanes].astype(np.int64)
        element = state.fetch_address[lanes]
    else:
        slot = fetch_slot(instr)
        buffer = _buffer(state, slot, where)
        src = state.read_temp(instr.src_reg + (loop_address if instr.src_reg_am else 0), lanes)
        index = np.floor(src[instr.src_swiz] + (F32(0.5) if instr.is_index_rounded else F32(0)))
        valid = np.isfinite(index) & (np.abs(index) < 2.0**31)
        element = np.where(
            valid,
            buffer.start + np.where(valid, index, 0).astype(np.int64) * (instr.stride * unit),
            _OUT_OF_RANGE,
        )
        slots = np.full(n, slot, dtype=np.int64)
        if config.mini_fetch:
            state.fetch_slot[lanes] = slot
            state.fetch_address[lanes] = element
    start = element + vertex_offset(instr, config) * unit
    info = isa.VERTEX_FORMAT_INFO[isa.SurfaceFormat(instr.format)]
    dwords = [np.zeros(n, dtype=np.uint32) for _ in range(info.dwords)]
    for slot in np.unique(slots):
        if slot < 0:
            continue  # a mini fetch with no full fetch before it reads zeros
        mask = slots == slot
        buffer = _buffer(state, int(slot), where)
        for d in range(info.dwords):
            dwords[d][mask] = _read_dwords(buffer, start[mask] + 4 * d)
    write_fetch_result(
        state,
        lanes,
        instr.dst_reg,
        instr.dst_reg_am,
        instr.dst_swiz,
        loop_address,
        _unpack(instr, dwords, config),
    )


def write_fetch_result(
    state: BatchState,
    lanes: Lanes,
    reg: int,
    relative: int,
    swizzle: int,
    loop_address: int,
    value: np.ndarray,
) -> None:
    """Write a fetched (4, n) value through an absolute 3-bit-per-channel destination
    swizzle: 0-3 a component, 4 = 0.0, 5 = 1.0, 6 (invalid) = 0.0 (XE-I), 7 = keep."""
    dest = state.temp(reg + (loop_address if relative else 0))
    for c in range(4):
        selector = (swizzle >> (3 * c)) & 7
        if selector < 4:
            dest[c, lanes] = value[selector]
        elif selector == _ONE:
            dest[c, lanes] = F32(1.0)
        elif selector != _KEEP:
            dest[c, lanes] = F32(0.0)
