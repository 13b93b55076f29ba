"""Run results as text: a table, JSON (one line per array) or an .npz archive.

Exports are named after what they hold (a2xx-isa.md#exports): ``position``, ``point_size`` and
``param0``-``param15`` for vertex shaders, ``color0``-``color3`` and ``depth`` for pixel
shaders, ``eA``/``eM0``-``eM4`` for memory exports, ``exportN`` otherwise.  Non-finite
numbers are written "inf", "-inf" and "nan" in JSON.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np

from .. import isa
from .results import FragmentResult, ShaderResult, VertexResult

#: An export register's kind (``isa.export_kind``) -> its name here ({} its index).
_EXPORT_NAMES = {"param": "param{}", "position": "position", "point_size": "point_size",
                 "color": "color{}", "depth": "depth", "address": "eA", "data": "eM{}"}


def export_name(number: int, result: ShaderResult) -> str:
    """A readable name for an export register (a2xx-isa.md#exports)."""
    if not isinstance(result, VertexResult | FragmentResult):
        kind, index = isa.export_kind(number, vertex=False)
        kind = kind if kind in ("address", "data") else None
    else:
        kind, index = isa.export_kind(number, vertex=isinstance(result, VertexResult))
    return f"export{number}" if kind is None else _EXPORT_NAMES[kind].format(index)


def _arrays(result: ShaderResult) -> dict[str, np.ndarray]:
    out = {export_name(n, result): v for n, v in result.exports.items()}
    out |= {f"R{n}": v for n, v in result.registers.items()}
    out |= {
        "killed": result.killed,
        "predicate": result.predicate,
        "address": result.address,
        "previous_scalar": result.previous_scalar,
    }
    return out


def _jsonable(array: np.ndarray) -> object:
    if array.dtype.kind == "f":
        if array.ndim:
            return [_jsonable(a) for a in array]
        value = float(array)
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return array.tolist()


def result_json(result: ShaderResult) -> str:
    """JSON text, one line per array."""
    kind = "vertex" if isinstance(result, VertexResult) else "fragment"
    fields: list[tuple[str, object]] = [("type", kind), ("count", result.count)]
    fields += [(name, _jsonable(value)) for name, value in _arrays(result).items()]
    fields.append(
        (
            "allocs",
            [
                {"cf_index": a.cf_index, "buffer": a.buffer.name, "size": a.size}
                for a in result.allocs
            ],
        )
    )
    fields.append(("unsupported_fetches", list(result.unsupported_fetches)))
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in fields]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def result_npz(result: ShaderResult) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **_arrays(result))
    return buffer.getvalue()


def number(value: float) -> str:
    return f"{float(value):.9g}"


def result_table(result: ShaderResult) -> str:
    """One row per invocation and export register written."""
    what = "vertex" if isinstance(result, VertexResult) else "fragment"
    rows = [[what, "export", "x", "y", "z", "w"]]
    for lane in range(result.count):
        for n, value in result.exports.items():
            rows.append([str(lane), export_name(n, result), *(number(v) for v in value[lane])])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]
    killed = np.flatnonzero(result.killed)
    if len(killed):
        lines.append(f"killed: {', '.join(map(str, killed))}")
    if result.unsupported_fetches:
        slots = ", ".join(map(str, result.unsupported_fetches))
        lines.append(f"warning: texture fetches in slots {slots} returned zeros (not emulated)")
    return "\n".join(lines) + "\n"
