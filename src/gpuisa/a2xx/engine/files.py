"""Emulator inputs read from files (used by ``a2xx run``).

Inputs (``.npy``, ``.npz`` or ``.json``):

* ``.npy``: an (N, 4) array (R0) or an (N, k, 4) array (R0..Rk-1) of initial registers
  (a pixel shader's interpolants; a vertex shader's index registers).
* ``.npz``: arrays ``R<n>`` (N, 4) are registers, ``indices`` the vertex indices, ``count``
  the vertex count, arrays named by a semantic in capitals (``POSITION``, ``TEXCOORD1``)
  an XDK vertex shader's attributes (uint8 data normalised); every other array is a vertex
  buffer (its raw little-endian memory) whose key is the array name, or its number if the
  name is one.
* ``.json``: ``{"count": N, "indices": [...], "registers": {"R0": [[x, y, z, w], ...]},
  "buffers": {"12": {"dtype": "float32", "data": [...]}, "pos": [1.0, ...]},
  "attributes": {"POSITION": [[x, y, z], ...], "COLOR": {"dtype": "uint8", "data":
  [[r, g, b, a], ...], "normalized": true}}}``; ``"interpolants"`` may be used instead of
  ``"registers"``.  A buffer or attribute given as a plain list is float32.

Constants (``.json`` or ``.npz``):

* ``.json``: ``{"float": {"C4": [x, y, z, w], "mvp": [[...], ...]} or [[...], ...],
  "bool": {"b3": true} or
  [...], "loop": {"i0": [count, start, step] or REGISTER}, "fetch": {"12": "pos" or
  {"buffer": "pos", "offset": BYTES, "size": BYTES, "endian": 0-3}}}``.
* ``.npz``: ``float`` (K, 4), ``bool`` (up to 256), ``loop`` (up to 32 register values or
  (up to 32, 3) count/start/step rows).

Non-finite numbers may be written "inf", "-inf" and "nan" in JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...datafiles import (
    file_type,
    json_numbers,
    load_json,
    load_npy,
    load_npz,
    read_input,
)
from ...errors import InputError
from .attributes import VertexAttribute, is_semantic
from .inputs import VertexFetchConstant

_PREFIXED = re.compile(r"[A-Za-z]?(\d+)")


def _npz(path: str) -> dict[str, np.ndarray]:
    try:
        return load_npz(path)
    except InputError:
        if read_input(path)[:6] == b"\x93NUMPY":
            raise InputError(f"{path}: expected an .npz archive, found a single array") from None
        raise


def _suffix(path: str, allowed: tuple[str, ...], what: str) -> str:
    suffix = file_type(path)
    if suffix not in allowed:
        raise InputError(
            f"{path}: {what} must be {', '.join(allowed)} (got {suffix or 'no'} extension)"
        )
    return suffix


def _array(value: object, where: str, dtype: object = np.float32) -> np.ndarray:
    try:
        numbers = json_numbers(value, where, numbers_only=True)
        return np.asarray(numbers, dtype=dtype)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError) as error:
        raise InputError(f"{where}: {error}") from None


def _key(name: str) -> int | str:
    return int(name) if name.isdigit() else name


def _index(name: object, prefix: str, where: str) -> int:
    text = str(name)
    match = _PREFIXED.fullmatch(text)
    if match is None or (text[0].isalpha() and text[0].lower() != prefix):
        raise InputError(f"{where}: {text!r} is not an index ({prefix.upper()}n or n)")
    return int(match[1])


def _object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object")
    return value


def _check_keys(data: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InputError(
            f"{where}: unknown key {unknown[0]!r} (expected {', '.join(sorted(allowed))})"
        )


def _buffer(value: object, where: str) -> np.ndarray:
    if isinstance(value, dict):
        _check_keys(value, {"dtype", "data"}, where)
        try:
            dtype = np.dtype(value.get("dtype", "float32")).newbyteorder("<")
        except TypeError as error:
            raise InputError(f"{where}: bad dtype ({error})") from None
        if dtype.kind not in "iuf":
            raise InputError(f"{where}: dtype must be an integer or float type")
        return _array(value.get("data", []), where, dtype)
    return _array(value, where, "<f4")


def _attribute(value: object, where: str) -> VertexAttribute | np.ndarray:
    if not isinstance(value, dict):
        return _array(value, where)
    _check_keys(value, {"dtype", "data", "normalized"}, where)
    normalized = value.get("normalized", True)
    if not isinstance(normalized, bool):
        raise InputError(f"{where}: normalized must be true or false")
    data = _buffer({k: v for k, v in value.items() if k != "normalized"}, where)
    return VertexAttribute(data, normalized)


def _npz_inputs(path: str, vertex_elements: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    registers, buffers, attributes = {}, {}, {}
    for name, array in _npz(path).items():
        if re.fullmatch(r"[Rr]\d+", name):
            registers[name] = array
        elif vertex_elements and is_semantic(name):
            attributes[name] = array
        elif name == "indices":
            out[name] = array
        elif name == "count":
            if array.shape != () or array.dtype.kind not in "iu":
                raise InputError(f"{path}: 'count' must be a single integer")
            out[name] = int(array)
        else:
            buffers[_key(name)] = array
    out["registers"], out["vertex_buffers"] = registers, buffers
    if attributes:
        out["attributes"] = attributes
    return out


def load_inputs(path: str, *, vertex_elements: bool = False) -> dict[str, Any]:
    """Keyword arguments for ``run_vertex`` / ``run_fragment`` read from ``path``:
    ``registers``, and for vertex shaders ``indices``, ``count``, ``vertex_buffers`` and
    (when the file has any) ``attributes``.  ``vertex_elements``: whether the shader
    declares vertex elements (an XDK container's); only then is an ``.npz`` array named by
    a semantic in capitals (``POSITION``) an attribute rather than a vertex buffer."""
    suffix = _suffix(path, (".npy", ".npz", ".json"), "inputs")
    out: dict[str, Any] = {}
    if suffix == ".npy":
        array = load_npy(path)
        if array.ndim == 3:
            out["registers"] = {k: array[:, k] for k in range(array.shape[1])}
        else:
            out["registers"] = {0: array}
        return out
    if suffix == ".npz":
        return _npz_inputs(path, vertex_elements)
    data = _object(load_json(path), path)
    _check_keys(
        data, {"count", "indices", "registers", "interpolants", "buffers", "attributes"}, path
    )
    if "count" in data:
        if isinstance(data["count"], bool) or not isinstance(data["count"], int):
            raise InputError(f"{path}: count must be an integer")
        out["count"] = data["count"]
    if "indices" in data:
        out["indices"] = _array(data["indices"], f"{path}: indices")
    regs = _object(data.get("registers", data.get("interpolants", {})), f"{path}: registers")
    out["registers"] = {k: _array(v, f"{path}: registers.{k}") for k, v in regs.items()}
    buffers = _object(data.get("buffers", {}), f"{path}: buffers")
    out["vertex_buffers"] = {
        _key(k): _buffer(v, f"{path}: buffers.{k}") for k, v in buffers.items()
    }
    if "attributes" in data:
        attributes = _object(data["attributes"], f"{path}: attributes")
        out["attributes"] = {
            k: _attribute(v, f"{path}: attributes.{k}") for k, v in attributes.items()
        }
    return out


def _fetch_constant(value: object, where: str) -> VertexFetchConstant:
    if isinstance(value, dict):
        _check_keys(value, {"buffer", "offset", "size", "endian"}, where)
        buffer = value.get("buffer", 0)
        fields = {k: v for k, v in value.items() if k != "buffer"}
    else:
        buffer, fields = value, {}
    if isinstance(buffer, str) and buffer.isdigit():
        buffer = int(buffer)
    if not isinstance(buffer, int | str) or isinstance(buffer, bool):
        raise InputError(f"{where}: buffer must be a buffer name or number")
    try:
        return VertexFetchConstant(buffer, **fields)
    except (InputError, TypeError) as error:
        raise InputError(f"{where}: {error}") from None


def _named_floats(
    key: str, value: object, names: Mapping[str, tuple[int, int]], where: str
) -> dict[int, np.ndarray]:
    """A float constant given by its constant-table name: one vec4 per register it
    occupies (``mvp``: four rows for c4-c7)."""
    first, count = names[key]
    rows = _array(value, where)
    if rows.shape == (4,):
        rows = rows[None]
    if rows.ndim != 2 or rows.shape[1] != 4 or not 1 <= len(rows) <= count:
        raise InputError(
            f"{where}: {key} occupies {count} register(s) from c{first}: give one vec4 "
            f"or up to {count} rows of 4, not shape {rows.shape}"
        )
    return {first + i: row for i, row in enumerate(rows)}


def load_constants(
    path: str, names: Mapping[str, tuple[int, int]] | None = None
) -> dict[str, Any]:
    """Keyword arguments ``float_constants``, ``bool_constants``, ``loop_constants`` and
    ``fetch_constants`` read from ``path``.  ``names`` maps a float constant's name in a
    container's constant table to its first register and register count, so that a JSON
    file may set ``"mvp"`` instead of ``"C4"``-``"C7"``."""
    suffix = _suffix(path, (".json", ".npz"), "constants")
    if suffix == ".npz":
        arrays = _npz(path)
        _check_keys(arrays, {"float", "bool", "loop"}, path)
        out: dict[str, Any] = {}
        if "float" in arrays:
            out["float_constants"] = arrays["float"]
        if "bool" in arrays:
            out["bool_constants"] = [bool(v) for v in np.ravel(arrays["bool"])]
        if "loop" in arrays:
            loop = arrays["loop"]
            out["loop_constants"] = (
                [tuple(int(x) for x in row) for row in loop]
                if loop.ndim == 2
                else [int(x) for x in loop]
            )
        return out
    data = _object(load_json(path), path)
    _check_keys(data, {"float", "bool", "loop", "fetch"}, path)
    out = {}
    if "float" in data:
        value = data["float"]
        if isinstance(value, dict):
            floats: dict[int, np.ndarray] = {}
            for k, v in value.items():
                if names and k in names:
                    floats |= _named_floats(k, v, names, f"{path}: float.{k}")
                else:
                    floats[_index(k, "c", f"{path}: float")] = _array(v, f"{path}: float.{k}")
            out["float_constants"] = floats
        else:
            out["float_constants"] = _array(value, f"{path}: float")
    if "bool" in data:
        value = data["bool"]
        if isinstance(value, dict):
            value = {_index(k, "b", f"{path}: bool"): v for k, v in value.items()}
        out["bool_constants"] = value
    if "loop" in data:
        value = data["loop"]
        if isinstance(value, dict):
            value = {_index(k, "i", f"{path}: loop"): v for k, v in value.items()}
        out["loop_constants"] = value
    if "fetch" in data:
        out["fetch_constants"] = {
            _index(k, "f", f"{path}: fetch"): _fetch_constant(v, f"{path}: fetch.{k}")
            for k, v in _object(data["fetch"], f"{path}: fetch").items()
        }
    return out
