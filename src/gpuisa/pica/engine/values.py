"""Turning user-supplied register values into shader state, with clear errors.

Register names are ``v0``-``v15``, ``r0``-``r15``, ``o0``-``o15``, ``c0``-``c95``,
``i0``-``i3``, ``b0``-``b15``, or a name from the DVLE's uniform table (``.in``,
``.fvec``, ``.ivec``, ``.bool``), which may span several registers.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ...floats import F24_MASK, f24_to_f32, unpack_f24_uniform
from ..isa import BANK_SIZES
from ..shbin import Dvle
from .loading import Arithmetic, load_floats

_BANK_WHAT = {"v": "input", "r": "temporary", "o": "output", "c": "float uniform",
              "i": "integer uniform", "b": "bool uniform"}
_REGISTER = re.compile(r"([vrocib])(\d+)")
#: Largest unsigned byte (integer uniform components; pica-emulation.md#upload-int-bool).
_BYTE_MAX = 0xFF


@dataclass(frozen=True, slots=True, init=False)
class F24Bits:
    """Raw float24 bit patterns for one register (shape (4,)) or several ((k, 4)).

    The patterns are loaded exactly as given (denormal patterns decode to their exact
    value and are flushed only by the instructions that flush, pica-emulation.md#f24-format), in
    either precision mode.  ``F24Bits.from_upload_words(w0, w1, w2)`` takes the three words of
    the packed uniform upload (pica-emulation.md#upload-float).
    """

    bits: np.ndarray

    def __init__(self, bits: object):
        try:
            arr = np.asarray(bits)
        except (TypeError, ValueError) as exc:
            raise InputError(f"F24Bits: not an array of bit patterns ({exc})") from None
        if arr.dtype == object:
            try:
                arr = arr.astype(np.int64)
            except (TypeError, ValueError, OverflowError):
                raise InputError("F24Bits: bit patterns must be integers") from None
        if arr.size == 0 or arr.dtype.kind not in "iu" or arr.shape[-1:] != (4,):
            raise InputError(f"F24Bits needs integer patterns of shape (4,) or (k, 4), got "
                             f"shape {arr.shape} dtype {arr.dtype}")
        if arr.min() < 0 or arr.max() > F24_MASK:
            raise InputError("F24Bits: float24 patterns must be in 0..0xFFFFFF")
        object.__setattr__(self, "bits", arr.astype(np.uint32))

    @classmethod
    def from_upload_words(cls, w0: int, w1: int, w2: int) -> F24Bits:
        return cls(unpack_f24_uniform(w0, w1, w2))

    def values(self) -> np.ndarray:
        return f24_to_f32(self.bits)


@dataclass(frozen=True, slots=True)
class RegisterRange:
    """``count`` consecutive registers of one bank, starting at ``first``."""

    bank: str
    first: int
    count: int
    name: str

    def names(self) -> list[str]:
        return [f"{self.bank}{self.first + k}" for k in range(self.count)]


#: (name, banks, id of the DVLE) -> (DVLE, range) of names resolved lately (kept with
#: their DVLE, so that its id is not reused while the entry lives).
_RESOLVED: dict[tuple, tuple[Dvle | None, RegisterRange]] = {}
_RESOLVED_SIZE = 256


def resolve(name: object, banks: str, dvle: Dvle | None, what: str) -> RegisterRange:
    """The registers called ``name`` among ``banks`` (register syntax or a DVLE name)."""
    key = (name, banks, id(dvle))
    try:
        found = _RESOLVED.get(key)
    except TypeError:  # an unhashable name: _resolve says what is wrong with it
        found = None
    if found is not None and found[0] is dvle:
        return found[1]
    reg = _resolve(name, banks, dvle, what)
    if len(_RESOLVED) >= _RESOLVED_SIZE:
        _RESOLVED.clear()
    _RESOLVED[key] = (dvle, reg)
    return reg


def _resolve(name: object, banks: str, dvle: Dvle | None, what: str) -> RegisterRange:
    if not isinstance(name, str):
        raise InputError(f"{what} names must be strings, got {name!r}")
    match = _REGISTER.fullmatch(name)
    if match and match[1] in banks:
        bank, number = match[1], int(match[2])
        if number >= BANK_SIZES[bank]:
            raise InputError(f"{name}: there is no {_BANK_WHAT[bank]} {name} "
                             f"({bank}0-{bank}{BANK_SIZES[bank] - 1})")
        return RegisterRange(bank, number, 1, name)
    entry = dvle.uniform(name) if dvle is not None else None
    bank = entry.bank if entry is not None else None  # properties: each one computes
    if bank is not None and bank in banks:
        first, count = entry.register, entry.count
        if count < 1 or first + count > BANK_SIZES[bank]:
            raise InputError(f"{name}: the DVLE's uniform table gives registers outside "
                             f"{bank}0-{bank}{BANK_SIZES[bank] - 1}")
        return RegisterRange(bank, first, count, name)
    allowed = ", ".join(f"{b}0-{b}{BANK_SIZES[b] - 1}" for b in banks)
    known = ""
    if dvle is not None:
        names = [u.name for u in dvle.uniforms if u.bank in banks]
        if names:
            known = f" or one of the DVLE's names ({', '.join(names)})"
    raise InputError(f"unknown {what} {name!r}: expected {allowed}{known}")


def _numeric(value: object, name: str) -> np.ndarray:
    if isinstance(value, F24Bits):
        return value.values()
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: not a numeric array ({exc})") from None
    if arr.dtype.kind not in "fiu":
        raise InputError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    return arr


#: ``loader(values, precision, out)``: converts given float values into register
#: contents in ``out`` (:func:`~.loading.load_floats`, or an engine's faster equivalent).
Loader = Callable[[np.ndarray, Arithmetic, np.ndarray], object]


@dataclass(frozen=True, slots=True)
class GivenRegister:
    """One register's values as the caller gave them, validated but not yet converted:
    ``(N, 4)``, or ``(1, 4)`` for the same value in every lane; ``exact`` for
    :class:`F24Bits` (float32 values loaded as they are)."""

    values: np.ndarray
    exact: bool

    def as_is(self, precision: Arithmetic, lanes: int) -> np.ndarray | None:
        """The given array itself if loading it would copy it unchanged (C-contiguous
        float32 ``(lanes, 4)`` in f32 mode, or exact), else None."""
        values = self.values
        if (values.dtype == np.float32 and values.shape == (lanes, 4)
                and values.flags.c_contiguous and (self.exact or precision == "f32")):
            return values
        return None

    def load(self, precision: Arithmetic, out: np.ndarray, loader: Loader = load_floats
             ) -> None:
        """Write the register contents into ``out`` (float32 ``(N, 4)``)."""
        if self.values.shape[0] != out.shape[0]:  # one row for every lane
            row = self.values if self.exact else load_floats(self.values, precision)
            out[...] = row
        elif self.exact:
            np.copyto(out, self.values)
        else:
            loader(self.values, precision, out)


def vertex_arrays(values: Mapping[str, object], banks: str, dvle: Dvle | None,
                  what: str) -> tuple[int, dict[tuple[str, int], GivenRegister]]:
    """Per-vertex register values: ``(lanes, {(bank, number): GivenRegister})``.

    A name of one register takes ``(N, 4)`` (or ``(4,)``, the same for every vertex); a
    name spanning k registers takes ``(N, k, 4)`` (or ``(k, 4)``).  Nothing is converted
    here: the caller loads each register straight into its storage.
    """
    if not isinstance(values, Mapping):
        raise InputError(f"{what}s must be a mapping of register names to arrays, got "
                         f"{type(values).__name__}")
    parsed: list[tuple[RegisterRange, np.ndarray, bool]] = []
    lanes: int | None = None
    for name, value in values.items():
        reg = resolve(name, banks, dvle, what)
        arr = _numeric(value, f"{what} {name!r}")
        single_shape = (4,) if reg.count == 1 else (reg.count, 4)
        if arr.shape == single_shape:
            parsed.append((reg, arr.reshape(1, reg.count, 4), isinstance(value, F24Bits)))
            continue
        if arr.ndim != len(single_shape) + 1 or arr.shape[1:] != single_shape:
            per = "4" if reg.count == 1 else f"{reg.count}, 4"
            raise InputError(f"{what} {name!r} has shape {arr.shape}; expected (N, {per}) "
                             f"for N vertices or ({per}) for one")
        if lanes is not None and arr.shape[0] != lanes:
            raise InputError(f"{what} {name!r} has {arr.shape[0]} vertices, other {what}s "
                             f"have {lanes}")
        lanes = arr.shape[0]
        parsed.append((reg, arr.reshape(lanes, reg.count, 4), isinstance(value, F24Bits)))
    lanes = 1 if lanes is None else lanes
    if lanes == 0:
        raise InputError(f"{what}s hold no vertices (N = 0)")
    out: dict[tuple[str, int], GivenRegister] = {}
    for reg, arr, exact in parsed:
        for k in range(reg.count):
            key = (reg.bank, reg.first + k)
            if key in out:
                raise InputError(f"{what} {reg.bank}{reg.first + k} is given twice "
                                 f"(via {reg.name!r})")
            out[key] = GivenRegister(arr[:, k], exact)
    return lanes, out


def uniform_values(values: Mapping[str, object], dvle: Dvle | None,
                   precision: Arithmetic) -> list[tuple[str, int, object]]:
    """Validated uniforms as ``(bank, number, value)``: float32 (4,) for c, int64 (4,) for
    i, bool for b."""
    if not isinstance(values, Mapping):
        raise InputError(f"uniforms must be a mapping of names to values, got "
                         f"{type(values).__name__}")
    out: list[tuple[str, int, object]] = []
    seen: dict[tuple[str, int], str] = {}
    # Float values of one dtype are converted together, once the shapes are checked:
    # converting one small array costs as much as converting a hundred.
    floats: list[tuple[int, np.ndarray]] = []
    for name, value in values.items():
        reg = resolve(name, "cib", dvle, "uniform")
        label = f"uniform {name!r}"
        if reg.bank == "c":
            given = _numeric(value, label)
            items = list(_rows(given, reg, (4,), label))
            if not isinstance(value, F24Bits):
                floats.append((len(out), given))
        elif reg.bank == "i":
            items = list(_rows(_int_vectors(value, label), reg, (4,), label))
        else:
            items = list(_rows(_bools(value, label), reg, (), label))
        for k, item in enumerate(items):
            key = (reg.bank, reg.first + k)
            if key in seen:
                raise InputError(f"{label}: {reg.bank}{reg.first + k} is already given by "
                                 f"{seen[key]!r}")
            seen[key] = name
            out.append((reg.bank, reg.first + k, item))
    for dtype in {given.dtype for _, given in floats}:  # one conversion rule per dtype
        group = [(first, given) for first, given in floats if given.dtype == dtype]
        rows = _converted(np.concatenate([given.reshape(-1, 4) for _, given in group]),
                          precision)
        done = 0
        for first, given in group:
            for k in range(given.size // 4):
                bank, number, _ = out[first + k]
                out[first + k] = (bank, number, rows[done + k])
            done += given.size // 4
    return out


#: Uniform values converted lately: (dtype, precision, bytes) -> read-only float32 rows.
#: Runs of a few vertices often repeat their uniforms, and converting them costs more
#: than running the shader.
_CONVERTED: OrderedDict[tuple, np.ndarray] = OrderedDict()
_CONVERTED_SIZE = 64
_CONVERTED_LOCK = threading.Lock()


def _converted(values: np.ndarray, precision: Arithmetic) -> np.ndarray:
    """:func:`load_floats` of ``(k, 4)`` uniform ``values``, remembered by content."""
    key = (values.dtype.str, precision, values.tobytes())
    with _CONVERTED_LOCK:
        rows = _CONVERTED.get(key)
        if rows is not None:
            _CONVERTED.move_to_end(key)
            return rows
    rows = load_floats(values, precision)
    rows.flags.writeable = False
    with _CONVERTED_LOCK:
        _CONVERTED[key] = rows
        while len(_CONVERTED) > _CONVERTED_SIZE:
            _CONVERTED.popitem(last=False)
    return rows


def _rows(arr: np.ndarray, reg: RegisterRange, item: tuple[int, ...], label: str) -> list:
    """The per-register items of a value for ``reg.count`` registers."""
    if reg.count == 1 and arr.shape == item:
        return [arr]
    if arr.shape != (reg.count, *item):
        one = "4 values" if item else "one bool"
        expected = one if reg.count == 1 else f"{reg.count} registers of {one}"
        raise InputError(f"{label} has shape {arr.shape}; expected {expected}, shape "
                         f"{(reg.count, *item) if reg.count > 1 else item}")
    return list(arr)


def _int_vectors(value: object, label: str) -> np.ndarray:
    arr = np.asarray(value, dtype=object if isinstance(value, list | tuple) else None)
    flat = arr.reshape(-1)
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
               for v in flat):
        raise InputError(f"{label}: integer uniforms take integers 0..255 (x = loop count, "
                         f"y = aL start, z = aL step, w unused)")
    ints = np.array([int(v) for v in flat], dtype=np.int64).reshape(arr.shape)
    if ints.size and (ints.min() < 0 or ints.max() > _BYTE_MAX):
        raise InputError(f"{label}: components must be in 0..255, got {ints.tolist()}")
    return ints


def _bools(value: object, label: str) -> np.ndarray:
    arr = np.asarray(value, dtype=object)
    flat = arr.reshape(-1)
    ok = all(isinstance(v, bool | np.bool_) or (isinstance(v, int | np.integer)
                                                 and int(v) in (0, 1)) for v in flat)
    if not ok:
        raise InputError(f"{label}: bool uniforms take True/False (or 0/1)")
    return np.array([bool(v) for v in flat], dtype=bool).reshape(arr.shape)
