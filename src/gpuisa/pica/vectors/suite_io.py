"""The suite on disk: ``cases.jsonl`` (one JSON object per case), ``cases.bin`` (the same
in a compact little-endian form) and ``manifest.json``; docs/vectors-format.md is the
specification.  Writing goes to a temporary directory beside the target, renamed into
place, so a failure never leaves half a suite."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ... import __version__
from ...conformance import result_fields
from ...datafiles import bit_patterns, read_json_lines, read_records, shown
from ...errors import InputError
from ...fileio import write_directory
from .model import (
    ADAPTER_STATUSES,
    MODES,
    PROVENANCE_KINDS,
    STATUSES,
    Case,
    Expected,
    Provenance,
    Register,
)

FORMAT = "gpuisa-pica-vectors"
MAGIC = b"PICAVEC1"
FILES = ("cases.jsonl", "cases.bin")


def hex_pattern(value: int, mode: str) -> str:
    return f"0x{value:06x}" if mode == "f24" else f"0x{value:08x}"


def _row(values: Iterable[int], mode: str) -> list[str]:
    return [hex_pattern(v, mode) for v in values]


def expected_json(exp: Expected, mode: str) -> dict[str, Any]:
    out: dict[str, Any] = {"status": exp.status}
    if exp.status != "ok":
        out["pc"] = exp.pc
        return out
    out["outputs"] = {name: _row(v, mode) for name, v in exp.outputs}
    out["cmp"] = list(exp.cmp)
    out["address"] = list(exp.address)
    if exp.vertices or exp.primitives:
        names = [name for name, _ in exp.outputs]
        out["vertices"] = [{n: _row(v, mode) for n, v in zip(names, vertex, strict=True)}
                           for vertex in exp.vertices]
        out["primitives"] = [[a, b, c, int(w)] for a, b, c, w in exp.primitives]
    if exp.semantics:
        out["semantics"] = {name: _row(v, mode) for name, v in exp.semantics}
    return out


def _register_json(reg: Register) -> dict[str, Any]:
    return {"f32": [_row(r, "f32") for r in reg.f32], "f24": [_row(r, "f24") for r in reg.f24]}


def case_json(case: Case) -> dict[str, Any]:
    return {
        "id": case.id,
        "tags": list(case.tags),
        "provenance": {"kind": case.provenance.kind, "source": case.provenance.source,
                       **({"choice": case.provenance.choice} if case.provenance.choice else {})},
        "unknowns": list(case.unknowns),
        **({"note": case.note} if case.note else {}),
        "program": {
            "code": [f"0x{w:08x}" for w in case.code],
            "opdescs": [f"0x{w:08x}" for w in case.opdescs],
            "entry": case.entry, "dvle": case.dvle, "geometry": case.geometry,
            "pipeline": case.pipeline or None,
            "source": case.source,
            "shbin": base64.b64encode(case.shbin).decode("ascii"),
        },
        "inputs": {reg.name: _register_json(reg) for reg in case.inputs},
        "uniforms": {
            "float": {reg.name: {"f32": _row(reg.f32[0], "f32"), "f24": _row(reg.f24[0], "f24")}
                      for reg in case.float_uniforms},
            "int": {name: list(v) for name, v in case.int_uniforms},
            "bool": case.bool_uniforms,
        },
        "initial": {"cmp": list(case.cmp), "address": list(case.address)},
        "expected": {mode: expected_json(case.expected[mode], mode) for mode in MODES},
        **({"f24_by_rounding": {rounding: expected_json(exp, "f24")
                                for rounding, exp in case.f24_by_rounding}}
           if case.f24_by_rounding else {}),
    }


# -- binary form ----------------------------------------------------------------------------


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack("<H", len(data)) + data


def _reg_number(name: str) -> int:
    return int(name[1:])


def _expected_bin(exp: Expected) -> bytes:
    out = [struct.pack("<Bi", STATUSES.index(exp.status), exp.pc),
           struct.pack("<B3i", exp.cmp[0] | exp.cmp[1] << 1, *exp.address),
           struct.pack("<B", len(exp.outputs))]
    for name, values in exp.outputs:
        out.append(struct.pack("<B4I", _reg_number(name), *values))
    out.append(struct.pack("<H", len(exp.vertices)))
    for vertex in exp.vertices:
        for values in vertex:
            out.append(struct.pack("<4I", *values))
    out.append(struct.pack("<H", len(exp.primitives)))
    for a, b, c, w in exp.primitives:
        out.append(struct.pack("<3HB", a, b, c, int(w)))
    out.append(struct.pack("<B", len(exp.semantics)))
    for name, values in exp.semantics:
        out += [_text(name), struct.pack(f"<B{len(values)}I", len(values), *values)]
    return b"".join(out)


def case_bin(case: Case) -> bytes:
    flags = int(case.geometry) | int(bool(case.pipeline)) << 1
    body = [_text(case.id), _text(",".join(case.tags)),
            struct.pack("<B", PROVENANCE_KINDS.index(case.provenance.kind)),
            _text(case.provenance.source), _text(",".join(case.unknowns)),
            struct.pack("<BBHHH", flags, case.dvle, case.entry, len(case.code),
                        len(case.opdescs)),
            struct.pack(f"<{len(case.code)}I", *case.code),
            struct.pack(f"<{len(case.opdescs)}I", *case.opdescs),
            struct.pack("<I", len(case.shbin)), case.shbin,
            struct.pack("<B3iH", case.cmp[0] | case.cmp[1] << 1, *case.address,
                        case.bool_uniforms),
            struct.pack("<B", len(case.int_uniforms))]
    for name, values in case.int_uniforms:
        body.append(struct.pack("<B4B", _reg_number(name), *values))
    body.append(struct.pack("<B", len(case.float_uniforms)))
    for reg in case.float_uniforms:
        body.append(struct.pack("<B4I4I", _reg_number(reg.name), *reg.f32[0], *reg.f24[0]))
    body.append(struct.pack("<BH", len(case.inputs), case.invocations))
    for reg in case.inputs:
        body.append(struct.pack("<B", _reg_number(reg.name)))
        for row32, row24 in zip(reg.f32, reg.f24, strict=True):
            body.append(struct.pack("<4I4I", *row32, *row24))
    for mode in MODES:
        body.append(_expected_bin(case.expected[mode]))
    data = b"".join(body)
    return struct.pack("<I", len(data)) + data


# -- writing ----------------------------------------------------------------------------------


def _jsonl(cases: Iterable[Case]) -> Iterator[bytes]:
    for case in cases:
        yield json.dumps(case_json(case), separators=(",", ":"), ensure_ascii=True).encode() + b"\n"


def write_suite(directory: str | os.PathLike[str], cases: list[Case], version: int,
                rounding: str) -> None:
    """Write the suite into ``directory`` (replaced as a whole, atomically); ``rounding``
    is the f24 rounding its cases were made with."""
    contents = {
        "cases.jsonl": b"".join(_jsonl(cases)),
        "cases.bin": MAGIC + struct.pack("<II", version, len(cases))
        + b"".join(case_bin(c) for c in cases),
    }
    manifest = {
        "format": FORMAT, "suite_version": version, "gpuisa": __version__,
        "cases": len(cases), "modes": list(MODES), "rounding": rounding,
        "provenance": {kind: sum(c.provenance.kind == kind for c in cases)
                       for kind in PROVENANCE_KINDS},
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in contents.items()},
    }
    contents["manifest.json"] = (json.dumps(manifest, indent=2) + "\n").encode()
    write_directory(directory, contents, "the suite")


# -- reading ----------------------------------------------------------------------------------


def _bits(values: object, mode: str, where: str, count: int = 4) -> tuple[int, ...]:
    return bit_patterns(values, where, count, 0xFFFFFF if mode == "f24" else 0xFFFFFFFF, mode)


def parse_result(record: Mapping[str, Any], mode: str, where: str,
                 outputs: tuple[str, ...]) -> Expected:
    """An implementation's result for one case: either ``{"status", "outputs", ...}`` or a
    suite record whose ``expected`` holds ``mode``.  Every field is checked: a malformed
    one is an :class:`InputError` naming it."""
    record = result_fields(record, mode, where)
    status = record.get("status", "ok")
    if not isinstance(status, str) or status not in STATUSES + ADAPTER_STATUSES:
        raise InputError(f"{where}: status must be one of "
                         f"{', '.join(STATUSES + ADAPTER_STATUSES)}, got "
                         f"{shown(status)}")
    if status != "ok":
        pc = _integer(record["pc"], f"{where}: pc", 0, MAX_PC) if "pc" in record else -1
        return Expected(status, (), (False, False), (0, 0, 0), pc=pc)
    given = _mapping(record, "outputs", where, "output registers to bit patterns")
    regs = tuple((name, _bits(given[name], mode, f"{where}: outputs.{name}"))
                 for name in outputs if name in given)
    cmp = record.get("cmp")
    if cmp is not None:
        cmp = tuple(bool(_integer(c, f"{where}: cmp[{k}]", 0, 1))
                    for k, c in enumerate(_list(cmp, f"{where}: cmp", 2)))
    address = record.get("address")
    if address is not None:
        address = tuple(_integer(a, f"{where}: address[{k}]", -(1 << 31), (1 << 31) - 1)
                        for k, a in enumerate(_list(address, f"{where}: address", 3)))
    vertices = []
    for k, vertex in enumerate(_list(record.get("vertices", []), f"{where}: vertices")):
        if not isinstance(vertex, Mapping):
            raise InputError(f"{where}: vertices[{k}] must map output registers to bit "
                             f"patterns, got {shown(vertex)}")
        vertices.append(tuple(_bits(vertex.get(name), mode, f"{where}: vertices[{k}].{name}")
                              for name in outputs))
    primitives = []
    for k, primitive in enumerate(_list(record.get("primitives", []),
                                        f"{where}: primitives")):
        at = f"{where}: primitives[{k}]"
        a, b, c, winding = _list(primitive, at, 4)
        primitives.append((*(_integer(i, at, 0, MAX_VERTEX) for i in (a, b, c)),
                           bool(_integer(winding, f"{at} winding", 0, 1))))
    given_semantics = _mapping(record, "semantics", where, "attribute names to bit patterns")
    semantics = tuple(
        (name, _bits(values, mode, f"{where}: semantics.{name}",
                     len(values) if isinstance(values, list) and 1 <= len(values) <= 4
                     else 4))
        for name, values in given_semantics.items())
    return Expected("ok", regs, cmp, address, tuple(vertices),  # type: ignore[arg-type]
                    tuple(primitives), semantics=semantics)


#: The largest program counter (4,096 instruction words) and emitted vertex index (the
#: binary form's u16) a result may name.
MAX_PC = 0xFFF
MAX_VERTEX = 0xFFFF


def _integer(value: object, where: str, low: int, high: int) -> int:
    """``value`` if it is an integer of ``low`` .. ``high`` (JSON true/false count as 1/0
    only where ``low`` .. ``high`` is 0 .. 1: flags)."""
    if isinstance(value, bool) and (low, high) == (0, 1):
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{where}: expected an integer {low}..{high}, got {shown(value)}")
    return value


def _list(value: object, where: str, count: int | None = None) -> list:
    if not isinstance(value, list) or (count is not None and len(value) != count):
        items = "a list" if count is None else f"a list of {count}"
        raise InputError(f"{where}: expected {items}, got {shown(value)}")
    return value


def _mapping(record: Mapping[str, Any], key: str, where: str, what: str) -> Mapping:
    value = record.get(key, {})
    if not isinstance(value, Mapping):
        raise InputError(f"{where}: '{key}' must map {what}, got {shown(value)}")
    return value


#: The longest line read from a results file (a whole case of the suite is about 14 KB).
MAX_RESULT_LINE = 1 << 20


def read_results(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-empty line of a JSON Lines file, read a line at a
    time (none longer than :data:`MAX_RESULT_LINE`)."""
    return read_records(path, limit=MAX_RESULT_LINE)


def provenance_of(record: Mapping[str, Any]) -> Provenance:
    p = record["provenance"]
    return Provenance(p["kind"], p["source"], p.get("choice", ""))


def _register_of(name: str, value: Mapping[str, Any], where: str) -> Register:
    rows = {mode: tuple(_bits(row, mode, f"{where}.{name}") for row in _list(value[mode], where))
            for mode in MODES}
    return Register(name, rows["f32"], rows["f24"])  # type: ignore[arg-type]


def case_from_json(record: Mapping[str, Any], where: str = "case") -> Case:
    """The :class:`Case` of one line of ``cases.jsonl`` (the inverse of :func:`case_json`)."""
    try:
        program, uniforms = record["program"], record["uniforms"]
        outputs = tuple(record["expected"]["f24"].get("outputs", {}))
        expected = {mode: parse_result(record["expected"][mode], mode, f"{where}: {mode}",
                                       outputs) for mode in MODES}
        for mode, exp in expected.items():  # parse_result reads pc only for failures
            if exp.status == "ok":
                continue
            expected[mode] = Expected(exp.status, (), (False, False), (0, 0, 0), pc=exp.pc)
        return Case(
            id=record["id"], tags=tuple(record["tags"]), provenance=provenance_of(record),
            unknowns=tuple(record["unknowns"]), note=record.get("note", ""),
            source=program["source"], shbin=base64.b64decode(program["shbin"]),
            code=tuple(int(w, 16) for w in program["code"]),
            opdescs=tuple(int(w, 16) for w in program["opdescs"]), dvle=program["dvle"],
            entry=program["entry"], geometry=program["geometry"],
            pipeline=program["pipeline"] or "",
            inputs=tuple(_register_of(n, v, where) for n, v in record["inputs"].items()),
            float_uniforms=tuple(_register_of(n, {m: [v[m]] for m in MODES}, where)
                                 for n, v in uniforms["float"].items()),
            int_uniforms=tuple((n, tuple(v)) for n, v in uniforms["int"].items()),
            bool_uniforms=uniforms["bool"],
            cmp=tuple(record["initial"]["cmp"]), address=tuple(record["initial"]["address"]),
            expected=expected,  # type: ignore[arg-type]
            f24_by_rounding=tuple(
                (rounding, parse_result(exp, "f24", f"{where}: f24 {rounding}", outputs))
                for rounding, exp in record.get("f24_by_rounding", {}).items()))
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"{where}: not a case of the suite ({error!r})") from None


def read_cases(path: str) -> Iterator[Case]:
    """Every case of a ``cases.jsonl`` file, in order."""
    return read_json_lines(path, case_from_json, limit=MAX_RESULT_LINE)
