"""The uniform table a run starts from: the DVLE's constants, then the caller's uniforms.

Runs of a few vertices made in a loop usually pass the same uniforms every time, and
building the table (resolving names, converting values, checking them) costs more than
running the shader on its compiled kernel.  :func:`shared_uniforms` therefore remembers
the tables it built by the content of what was given; a remembered table is read-only,
so that no run can change what a later run starts from.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

import numpy as np

from ...errors import InputError
from ...floats import f24_to_f32
from ..shbin import ConstantKind, Dvle
from ..shbin.records import CONSTANT_BANK_SIZE
from .loading import Precision
from .state import Uniforms
from .values import F24Bits, uniform_values


def load_uniforms(dvle: Dvle | None, given: Mapping[str, object],
                  precision: Precision) -> Uniforms:
    """The DVLE's constants (as libctru uploads them when the shader is bound), then the
    user's values, which therefore override constants of the same register."""
    table = Uniforms()
    for i, constant in enumerate(dvle.constants if dvle is not None else ()):
        kind, number = constant.kind, constant.register
        limit = CONSTANT_BANK_SIZE[kind]
        if not 0 <= number < limit:
            raise InputError(f"DVLE constant {i} targets register {number} of a bank of "
                             f"{limit}")
        if kind == ConstantKind.FLOAT:
            table.set_float(number, f24_to_f32(np.array(constant.f24)))
        elif kind == ConstantKind.INT:
            table.set_int(number, np.array(constant.ints))
        else:
            table.set_bool(number, constant.value)
    for bank, number, value in uniform_values(given, dvle, precision):
        if bank == "c":
            table.set_float(number, value)
        elif bank == "i":
            table.set_int(number, value)
        else:
            table.set_bool(number, bool(value))
    return table


#: (id of the DVLE, precision, content of the given uniforms) -> (DVLE, table).  The
#: DVLE is kept beside its table so that its id cannot be reused by another object
#: while the entry lives.
_TABLES: OrderedDict[tuple, tuple[Dvle | None, Uniforms]] = OrderedDict()
_TABLES_SIZE = 32
_LOCK = threading.Lock()
#: Python scalars whose repr names their value exactly (float repr round-trips, except
#: for NaN payloads: NaNs are not remembered).
_EXACT_SCALARS = (bool, int, float)


def shared_uniforms(dvle: Dvle | None, given: Mapping[str, object] | None,
                    precision: Precision) -> Uniforms:
    """:func:`load_uniforms`, read-only and remembered by the content of ``given``
    (values whose content cannot be told cheaply and exactly are loaded every time)."""
    key = _content(given or {})
    if key is None:
        return load_uniforms(dvle, given or {}, precision)
    key = (id(dvle), precision, key)
    with _LOCK:
        found = _TABLES.get(key)
        if found is not None and found[0] is dvle:
            _TABLES.move_to_end(key)
            return found[1]
    table = load_uniforms(dvle, given or {}, precision)
    for array in (table.floats, table.float_given, table.ints, table.int_given,
                  table.bools, table.bool_given):
        array.flags.writeable = False
    with _LOCK:
        _TABLES[key] = (dvle, table)
        while len(_TABLES) > _TABLES_SIZE:
            _TABLES.popitem(last=False)
    return table


def _content(given: Mapping[str, object]) -> tuple | None:
    """A key equal for two mappings exactly when they give the same uniforms, or None
    when a value is of a kind whose content this does not tell (it is then not
    remembered)."""
    if type(given) is not dict:
        return None
    parts = []
    for name, value in given.items():
        if type(name) is not str:
            return None
        if type(value) is np.ndarray:
            if value.dtype.hasobject:
                return None
            parts.append((name, value.dtype.str, value.shape, value.tobytes()))
        elif type(value) is F24Bits:
            parts.append((name, "f24", value.bits.shape, value.bits.tobytes()))
        elif _exact(value):
            parts.append((name, repr(value)))
        else:
            return None
    return tuple(parts)


def _exact(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is a scalar of :data:`_EXACT_SCALARS` or (nested up to three
    deep) a list or tuple of them: then its repr names it exactly."""
    if type(value) in _EXACT_SCALARS:
        return value == value  # False for NaN only
    if type(value) in (list, tuple) and depth < 3:
        return all(_exact(item, depth + 1) for item in value)
    return False
