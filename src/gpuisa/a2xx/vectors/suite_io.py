"""The suite on disk: ``cases.jsonl`` (one JSON object per case), ``cases.bin`` (the same
in a compact little-endian form) and ``manifest.json``; docs/a2xx-vectors-format.md is the
specification.  The directory is written atomically (:func:`gpuisa.fileio.write_directory`)."""

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
    PROVENANCE_KINDS,
    SHADERS,
    TARGETS,
    Case,
    Provenance,
    Result,
    Row,
    TextureData,
    VertexBuffer,
)

FORMAT = "gpuisa-a2xx-vectors"
MAGIC = b"A2XXVEC1"
FILTERS = ("nearest", "linear")
ADDRESSES = ("clamp", "wrap")
#: The longest line read from a results or cases file.
MAX_RESULT_LINE = 1 << 20
#: The largest export register number a result may name.
MAX_EXPORT = 63


def _hex(rows: Iterable[Row]) -> list[list[str]]:
    return [[f"0x{v:08x}" for v in row] for row in rows]


def result_json(result: Result) -> dict[str, Any]:
    return {"exports": {f"export{n}": _hex(rows) for n, rows in result.exports},
            "killed": [int(k) for k in result.killed]}


def case_json(case: Case) -> dict[str, Any]:
    provenance = {"kind": case.provenance.kind, "source": case.provenance.source}
    if case.provenance.choice:
        provenance["choice"] = case.provenance.choice
    words = list(case.words)
    return {
        "id": case.id,
        "tags": list(case.tags),
        "provenance": provenance,
        **({"note": case.note} if case.note else {}),
        "program": {
            "shader": case.shader,
            "words": [f"0x{w:08x}" for w in words],
            "big_endian": base64.b64encode(struct.pack(f">{len(words)}I", *words)).decode(),
            "source": case.source,
        },
        "invocations": case.invocations,
        "registers": {f"R{n}": _hex(rows) for n, rows in case.registers},
        "constants": {
            "float": {f"C{i}": _hex([row])[0] for i, row in case.float_constants},
            "bool": list(case.bool_constants),
            "loop": {f"I{i}": f"0x{v:08x}" for i, v in case.loop_constants},
        },
        "vertex_buffers": [{"slot": b.slot, "endian": b.endian, "data": b.data.hex()}
                           for b in case.vertex_buffers],
        "textures": [{"index": t.index, "width": t.width, "height": t.height,
                      "filter": t.filter, "address": t.address, "texels": _hex(t.texels)}
                     for t in case.textures],
        "expected": {t: result_json(case.expected[t]) for t in TARGETS},
        "differences": list(case.differences),
        "alternatives": {label: result_json(r) for label, r in case.alternatives},
    }


# -- binary form ----------------------------------------------------------------------------


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return struct.pack("<H", len(data)) + data


def _rows_bin(rows: Iterable[Row]) -> bytes:
    return b"".join(struct.pack("<4I", *row) for row in rows)


def result_bin(result: Result) -> bytes:
    out = [struct.pack("<B", len(result.exports))]
    for number, rows in result.exports:
        out += [struct.pack("<B", number), _rows_bin(rows)]
    out.append(bytes(int(k) for k in result.killed))
    return b"".join(out)


def case_bin(case: Case) -> bytes:
    body = [_text(case.id), _text(",".join(case.tags)),
            struct.pack("<B", PROVENANCE_KINDS.index(case.provenance.kind)),
            _text(case.provenance.source), _text(case.provenance.choice),
            struct.pack("<BH", SHADERS.index(case.shader), len(case.words)),
            struct.pack(f"<{len(case.words)}I", *case.words),
            struct.pack("<HB", case.invocations, len(case.registers))]
    for number, rows in case.registers:
        body += [struct.pack("<B", number), _rows_bin(rows)]
    body.append(struct.pack("<H", len(case.float_constants)))
    for index, row in case.float_constants:
        body.append(struct.pack("<H4I", index, *row))
    body.append(struct.pack(f"<B{len(case.bool_constants)}B", len(case.bool_constants),
                            *case.bool_constants))
    body.append(struct.pack("<B", len(case.loop_constants)))
    for index, value in case.loop_constants:
        body.append(struct.pack("<BI", index, value))
    body.append(struct.pack("<B", len(case.vertex_buffers)))
    for b in case.vertex_buffers:
        body += [struct.pack("<BBI", b.slot, b.endian, len(b.data)), b.data]
    body.append(struct.pack("<B", len(case.textures)))
    for t in case.textures:
        body += [struct.pack("<BHHBB", t.index, t.width, t.height, FILTERS.index(t.filter),
                             ADDRESSES.index(t.address)), _rows_bin(t.texels)]
    body.append(_text(",".join(case.differences)))
    body += [result_bin(case.expected[t]) for t in TARGETS]
    body.append(struct.pack("<B", len(case.alternatives)))
    for label, result in case.alternatives:
        body += [_text(label), result_bin(result)]
    data = b"".join(body)
    return struct.pack("<I", len(data)) + data


# -- writing ----------------------------------------------------------------------------------


def suite_files(cases: list[Case], version: int) -> dict[str, bytes]:
    """The three files of the suite, by name."""
    lines = (json.dumps(case_json(c), separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
             for c in cases)
    contents = {
        "cases.jsonl": b"".join(lines),
        "cases.bin": MAGIC + struct.pack("<II", version, len(cases))
        + b"".join(case_bin(c) for c in cases),
    }
    manifest = {
        "format": FORMAT, "suite_version": version, "gpuisa": __version__,
        "cases": len(cases), "targets": list(TARGETS),
        "provenance": {kind: sum(c.provenance.kind == kind for c in cases)
                       for kind in PROVENANCE_KINDS},
        "targets_differ": sum(bool(c.differences) for c in cases),
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in contents.items()},
    }
    contents["manifest.json"] = (json.dumps(manifest, indent=2) + "\n").encode()
    return contents


def write_suite(directory: str | os.PathLike[str], cases: list[Case], version: int) -> None:
    write_directory(directory, suite_files(cases, version), "the suite")


# -- reading ----------------------------------------------------------------------------------


def _row(values: object, where: str) -> Row:
    return bit_patterns(values, where, 4, 0xFFFFFFFF, "float32")  # type: ignore[return-value]


def _export_number(name: object, where: str) -> int:
    text = name[6:] if isinstance(name, str) and name.startswith("export") else ""
    if not (text.isascii() and text.isdigit() and len(text) <= 2) or int(text) > MAX_EXPORT:
        raise InputError(f"{where}: {shown(name)} is not an export register (export0-export63)")
    return int(text)


def parse_result(record: Mapping[str, Any], where: str, invocations: int,
                 target: str = "adreno") -> Result:
    """An implementation's result for one case: ``{"exports": {...}, "killed": [...]}``,
    or a suite record whose ``expected`` holds ``target``.  Every field is checked."""
    record = result_fields(record, target, where)
    exports = record.get("exports", {})
    if not isinstance(exports, Mapping):
        raise InputError(f"{where}: 'exports' must map export registers to rows, got "
                         f"{shown(exports)}")
    parsed = []
    for name, rows in exports.items():
        at = f"{where}: exports.{name}"
        number = _export_number(name, f"{where}: exports")
        if not isinstance(rows, list) or len(rows) != invocations:
            raise InputError(f"{at}: expected {invocations} rows (one per invocation), got "
                             f"{shown(rows)}")
        parsed.append((number, tuple(_row(r, f"{at}[{k}]") for k, r in enumerate(rows))))
    killed = record.get("killed", [0] * invocations)
    if (not isinstance(killed, list) or len(killed) != invocations
            or any(k not in (0, 1) or isinstance(k, float) for k in killed)):
        raise InputError(f"{where}: 'killed' must be {invocations} flags (0 or 1), got "
                         f"{shown(killed)}")
    return Result(tuple(sorted(parsed)), tuple(bool(k) for k in killed))


def read_results(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-empty line of a JSON Lines results file."""
    return read_records(path, limit=MAX_RESULT_LINE)


def _buffers(record: list) -> tuple[VertexBuffer, ...]:
    return tuple(VertexBuffer(b["slot"], b["endian"], bytes.fromhex(b["data"])) for b in record)


def _textures(record: list) -> tuple[TextureData, ...]:
    return tuple(TextureData(t["index"], t["width"], t["height"], t["filter"], t["address"],
                             tuple(_row(r, "texels") for r in t["texels"])) for t in record)


def case_from_json(record: Mapping[str, Any], where: str = "case") -> Case:
    """The :class:`Case` of one line of ``cases.jsonl`` (the inverse of :func:`case_json`)."""
    try:
        n = record["invocations"]
        constants, program = record["constants"], record["program"]
        p = record["provenance"]
        if p["kind"] not in PROVENANCE_KINDS:
            raise ValueError(f"unknown provenance kind {p['kind']!r}")
        return Case(
            id=record["id"], tags=tuple(record["tags"]),
            provenance=Provenance(p["kind"], p["source"], p.get("choice", "")),
            note=record.get("note", ""), shader=program["shader"],
            words=tuple(int(w, 16) for w in program["words"]), source=program["source"],
            invocations=n,
            registers=tuple((int(name[1:]), tuple(_row(r, where) for r in rows))
                            for name, rows in record["registers"].items()),
            float_constants=tuple((int(name[1:]), _row(row, where))
                                  for name, row in constants["float"].items()),
            bool_constants=tuple(constants["bool"]),
            loop_constants=tuple((int(name[1:]), int(v, 16))
                                 for name, v in constants["loop"].items()),
            vertex_buffers=_buffers(record["vertex_buffers"]),
            textures=_textures(record["textures"]),
            expected={t: parse_result(record["expected"][t], f"{where}: {t}", n)
                      for t in TARGETS},
            differences=tuple(record["differences"]),
            alternatives=tuple((label, parse_result(r, f"{where}: {label}", n))
                               for label, r in record["alternatives"].items()),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"{where}: not a case of the suite ({error!r})") from None


def read_cases(path: str) -> Iterator[Case]:
    """Every case of a ``cases.jsonl`` file, in order."""
    return read_json_lines(path, case_from_json, limit=MAX_RESULT_LINE)
