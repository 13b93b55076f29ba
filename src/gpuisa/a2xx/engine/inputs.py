"""Checking and normalising what a caller hands the emulator: constants and vertex memory.

Every problem raises :class:`~gpuisa.errors.InputError` naming the argument and the
offending entry.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...errors import InputError
from .. import isa
from .texture import Texture

_LOOP_FIELDS = isa.LOOP_CONSTANT_LAYOUT


def _index(value: object, what: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{what} must be an integer, not {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InputError(f"{what} must be an integer, not {value!r}") from None


@dataclass(frozen=True, slots=True)
class LoopConstant:
    """A loop constant register (a2xx-isa.md#cf-loop): ``count`` iterations,
    aL = start + i * step."""

    count: int
    start: int = 0
    step: int = 1

    def __post_init__(self) -> None:
        for name, low, high in (("count", 0, 255), ("start", 0, 255), ("step", -128, 127)):
            value = _index(getattr(self, name), f"loop constant {name}")
            if not low <= value <= high:
                raise InputError(f"loop constant {name} must be {low}..{high}, not {value}")

    @classmethod
    def from_register(cls, value: int) -> LoopConstant:
        """Decode the 32-bit register value (count bits 0-7, start 8-15, step 16-23)."""
        value = _index(value, "a loop constant register")
        if not 0 <= value <= 0xFFFFFFFF:
            raise InputError(f"a loop constant register is 32 bits, not {value:#x}")
        fields = _LOOP_FIELDS.unpack(value)
        return cls(fields["count"], fields["start"], isa.sign_extend(fields["step"], 8))

    def to_register(self) -> int:
        return _LOOP_FIELDS.pack(
            {"count": self.count, "start": self.start, "step": self.step & 0xFF}
        )

    def address(self, iteration: int) -> int:
        """aL during ``iteration`` (counting from 0), clamped as the hardware does (XE-I)."""
        low, high = isa.LOOP_ADDRESS_RANGE
        return min(high, max(low, self.start + iteration * self.step))


def _loop_constant(value: object, where: str) -> LoopConstant:
    if isinstance(value, LoopConstant):
        return value
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if not 1 <= len(value) <= 3:
            raise InputError(f"{where}: expected (count, start, step), got {value!r}")
        try:
            return LoopConstant(*value)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    try:
        return LoopConstant.from_register(value)  # type: ignore[arg-type]
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


@dataclass(frozen=True, slots=True)
class VertexFetchConstant:
    """Where a vertex fetch constant points: ``size`` bytes at ``offset`` in a buffer.

    ``buffer`` is a key of the ``vertex_buffers`` mapping; ``size=None`` means up to the
    end of the buffer.  Reads outside the range return 0 (XE-I).  ``endian`` is the
    byte swap applied to each dword (:class:`~gpuisa.a2xx.isa.Endian`).
    """

    buffer: int | str = 0
    offset: int = 0
    size: int | None = None
    endian: int = isa.Endian.NONE

    def __post_init__(self) -> None:
        if _index(self.offset, "fetch constant offset") < 0:
            raise InputError(f"fetch constant offset must be >= 0, not {self.offset}")
        if self.size is not None and _index(self.size, "fetch constant size") < 0:
            raise InputError(f"fetch constant size must be >= 0, not {self.size}")
        if _index(self.endian, "fetch constant endian") not in range(4):
            raise InputError(f"fetch constant endian must be 0..3, not {self.endian}")

    @classmethod
    def from_dwords(cls, d0: int, d1: int, buffer: int | str = 0) -> VertexFetchConstant:
        """Decode a Xenos two-dword vertex fetch constant (address and size in dwords,
        the address taken as an offset into ``buffer``)."""
        d0 = _index(d0, "fetch constant dword 0")
        d1 = _index(d1, "fetch constant dword 1")
        if not (0 <= d0 <= 0xFFFFFFFF and 0 <= d1 <= 0xFFFFFFFF):
            raise InputError("fetch constant dwords must be 32-bit unsigned values")
        f = isa.VERTEX_FETCH_CONSTANT_LAYOUT.unpack(d0 | d1 << 32)
        return cls(buffer, 4 * f["address"], 4 * f["size"], f["endian"])


@dataclass(frozen=True, slots=True)
class BoundBuffer:
    """A fetch constant resolved against its buffer: readable bytes ``[start, end)``."""

    data: np.ndarray  # uint8, the whole buffer plus 4 bytes of zero padding
    start: int
    end: int
    endian: int


@dataclass(frozen=True, slots=True)
class Constants:
    """Normalised constant registers."""

    floats: np.ndarray  # (FLOAT_CONSTANTS + 1, 4) float32; the last row is all zero
    bools: np.ndarray  # (BOOL_CONSTANTS,) bool
    loops: tuple[LoopConstant, ...]  # LOOP_CONSTANTS entries
    fetch: Mapping[int, BoundBuffer]  # vertex fetch slot -> buffer
    textures: Mapping[int, Texture]  # texture fetch constant -> texels

    def float_rows(self, index: np.ndarray | int) -> np.ndarray:
        """Constant rows; indices outside 0..FLOAT_CONSTANTS-1 read zeros (XE-I)."""
        idx = np.asarray(index, dtype=np.int64)
        bad = (idx < 0) | (idx >= isa.FLOAT_CONSTANTS)
        return self.floats[np.where(bad, isa.FLOAT_CONSTANTS, idx)]


def _items(value: object, what: str, limit: int) -> list[tuple[int, object]]:
    """(index, entry) pairs of a mapping or a sequence, indices checked against ``limit``."""
    if isinstance(value, Mapping):
        pairs = [(_index(k, f"{what} index {k!r}"), v) for k, v in value.items()]
    elif isinstance(value, str | bytes):
        raise InputError(f"{what} must be a mapping or a sequence, not {type(value).__name__}")
    else:
        try:
            pairs = list(enumerate(value))  # type: ignore[call-overload]
        except TypeError:
            raise InputError(f"{what} must be a mapping or a sequence") from None
    for index, _ in pairs:
        if not 0 <= index < limit:
            raise InputError(f"{what} index {index} is out of range (0..{limit - 1})")
    return pairs


def float_constants(value: object) -> np.ndarray:
    table = np.zeros((isa.FLOAT_CONSTANTS + 1, 4), dtype=np.float32)
    if value is None:
        return table
    if isinstance(value, Mapping):
        for index, row in _items(value, "float_constants", isa.FLOAT_CONSTANTS):
            table[index] = _vec4(row, f"float_constants[{index}]")
        return table
    array = _float_array(value, "float_constants")
    if array.ndim != 2 or array.shape[1] != 4 or array.shape[0] > isa.FLOAT_CONSTANTS:
        raise InputError(
            f"float_constants must have shape (K, 4) with K <= {isa.FLOAT_CONSTANTS}, "
            f"got {array.shape}"
        )
    table[: array.shape[0]] = array
    return table


def bool_constants(value: object) -> np.ndarray:
    table = np.zeros(isa.BOOL_CONSTANTS, dtype=bool)
    if value is None:
        return table
    for index, entry in _items(value, "bool_constants", isa.BOOL_CONSTANTS):
        if not isinstance(entry, bool | np.bool_) and entry not in (0, 1):
            raise InputError(f"bool_constants[{index}] must be true/false, not {entry!r}")
        table[index] = bool(entry)
    return table


def loop_constants(value: object) -> tuple[LoopConstant, ...]:
    table = [LoopConstant(0)] * isa.LOOP_CONSTANTS
    if value is not None:
        for index, entry in _items(value, "loop_constants", isa.LOOP_CONSTANTS):
            table[index] = _loop_constant(entry, f"loop_constants[{index}]")
    return tuple(table)


def _buffer_bytes(value: object, key: object) -> np.ndarray:
    if isinstance(value, bytes | bytearray | memoryview):
        return np.frombuffer(bytes(value), dtype=np.uint8)
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise InputError(f"vertex buffer {key!r} holds Python objects, not numbers")
        return np.frombuffer(np.ascontiguousarray(value).tobytes(), dtype=np.uint8)
    raise InputError(
        f"vertex buffer {key!r} must be bytes or a NumPy array (its raw little-endian "
        f"memory), not {type(value).__name__}"
    )


def buffer_map(buffers: object) -> Mapping[object, object]:
    """The ``vertex_buffers`` argument, checked to be a mapping (None: no buffers)."""
    if buffers is None:
        return {}
    if not isinstance(buffers, Mapping):
        raise InputError("vertex_buffers must be a mapping of buffer keys to bytes or arrays")
    return buffers


def default_fetch_constants(buffers: Mapping[object, object]) -> dict[int, int]:
    """The binding without fetch constants: each integer buffer key is the fetch slot of
    that number, the whole buffer."""
    return {key: key for key in buffers if isinstance(key, int)}


def fetch_constant_map(constants: object) -> dict[int, object]:
    """The ``fetch_constants`` argument (a mapping or a sequence) as slot -> entry."""
    return dict(_items(constants, "fetch_constants", isa.VERTEX_FETCH_SLOTS))


def bind_vertex_buffers(buffers: object, constants: object) -> dict[int, BoundBuffer]:
    """Resolve fetch constants (slot -> :class:`VertexFetchConstant` or buffer key)
    against ``buffers``.  Without fetch constants every integer buffer key is bound to the
    fetch slot of that number, whole."""
    memory = {key: _buffer_bytes(data, key) for key, data in buffer_map(buffers).items()}
    if constants is None:
        constants = default_fetch_constants(memory)
    bound: dict[int, BoundBuffer] = {}
    for slot, entry in fetch_constant_map(constants).items():
        const = entry if isinstance(entry, VertexFetchConstant) else VertexFetchConstant(entry)
        if const.buffer not in memory:
            raise InputError(
                f"fetch_constants[{slot}] names vertex buffer {const.buffer!r}, which was "
                f"not given (buffers: {', '.join(map(repr, memory)) or 'none'})"
            )
        data = memory[const.buffer]
        end = len(data) if const.size is None else const.offset + const.size
        if end > len(data) or const.offset > len(data):
            raise InputError(
                f"fetch_constants[{slot}]: bytes {const.offset}..{end} lie outside vertex "
                f"buffer {const.buffer!r} ({len(data)} bytes)"
            )
        # Four zero bytes of padding keep every gather of a dword inside the array.
        padded = np.concatenate([data, np.zeros(4, dtype=np.uint8)])
        bound[slot] = BoundBuffer(padded, const.offset, end, int(const.endian))
    return bound


def _float_array(value: object, what: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{what} must be numbers: {exc}") from None
    return array


def _vec4(value: object, what: str) -> np.ndarray:
    array = _float_array(value, what)
    if array.shape != (4,):
        raise InputError(f"{what} must be 4 numbers, got shape {array.shape}")
    return array


def lane_rows(value: npt.ArrayLike, count: int, what: str) -> np.ndarray:
    """Per-invocation vec4 data as a component-major (4, count) float32 array;
    a single vec4 applies to every invocation."""
    array = _float_array(value, what)
    if array.shape == (4,):
        return np.repeat(array[:, None], count, axis=1)
    if array.shape != (count, 4):
        raise InputError(f"{what} must have shape ({count}, 4) or (4,), got {array.shape}")
    return np.ascontiguousarray(array.T)


def register_index(key: object, what: str) -> int:
    """A temp register number from 5, "5", "R5" or "r5"."""
    text = key.strip().lower().removeprefix("r") if isinstance(key, str) else key
    if isinstance(text, str):
        if not text.isdigit():
            raise InputError(f"{what}: {key!r} is not a register (use R0..R63)")
        text = int(text)
    index = _index(text, what)
    if not 0 <= index < isa.TEMP_REGISTERS:
        raise InputError(f"{what}: register {index} is out of range (R0..R63)")
    return index


def textures(value: object) -> dict[int, Texture]:
    """Texture fetch constants (0-31) -> :class:`Texture` (or a (height, width, 4) array)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError("textures must be a mapping of texture fetch constants to textures")
    out: dict[int, Texture] = {}
    for index, entry in _items(value, "textures", isa.TEXTURE_FETCH_CONSTANTS):
        try:
            out[index] = entry if isinstance(entry, Texture) else Texture(entry)  # type: ignore[arg-type]
        except InputError as exc:
            raise InputError(f"textures[{index}]: {exc}") from None
    return out
