"""``pica run`` and ``pica trace``: execute a shader on vertices from a file.

``pica run SHADER --inputs FILE [--uniforms FILE] [--dvle N] [--precision f24|f32]
[--format table|json|npz] [-o OUT]`` runs every vertex and prints (or writes) the
outputs.  ``pica trace SHADER --inputs FILE [--vertex K] ...`` runs one vertex and
prints each executed instruction, the registers it changed and the control-flow stacks
after it.

SHADER is a ``.shbin`` (recognised by its ``DVLB`` magic) or assembly source, which is
assembled first.  Inputs: ``.npy`` (``(N, 4)`` is v0, ``(N, k, 4)`` is v0..v(k-1)),
``.npz`` (one array per register or ``.in`` name), ``.json`` (``{"v0": [[x, y, z, w],
...]}``) or ``.csv`` (a header of ``NAME.x, NAME.y, NAME.z, NAME.w`` columns, one row per
vertex).  Uniforms: ``.json`` mapping register or uniform names to 4 numbers (c), 4
integers (i), true/false (b), a list of those for arrays, or ``{"f24": [...]}`` for raw
float24 patterns.  In JSON input and output, non-finite numbers are the strings "inf",
"-inf" and "nan".  Output files are written atomically.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path

import numpy as np

from ..datafiles import MAX_SHADER_BYTES, SPECIAL_NUMBERS, load_json, load_npy, load_npz, read_input
from ..errors import GpuIsaError, InputError
from ..fileio import write_output
from .engine import F24Bits, RunResult, run
from .engine import jit as _jit  # noqa: F401  (registers engine='jit' when numba is installed)
from .engine.api import engine_names, executable
from .engine.trace import Trace, number, trace
from .shbin import Shbin

_COMPONENTS = "xyzw"
_SHBIN_MAGIC = b"DVLB"


def register(subparsers: argparse._SubParsersAction) -> None:
    run_parser = subparsers.add_parser(
        "run", help="run a shader on vertices from a file",
        description="Run a vertex shader on every vertex of the input file (a geometry "
                    "shader once per input row) and print its outputs.")
    _common(run_parser)
    run_parser.add_argument("--format", choices=("table", "json", "npz"), default="table",
                            help="output format (default: table; npz needs -o)")
    run_parser.add_argument("-o", "--output", metavar="OUT", help="write here, not stdout")
    run_parser.add_argument("--engine", choices=engine_names(), default="auto",
                            help="execution engine (default: auto, the fastest available "
                            "for the input size)")
    run_parser.set_defaults(handler=_run)

    trace_parser = subparsers.add_parser(
        "trace", help="run one vertex and print every executed instruction",
        description="Run one vertex on the reference engine and print each executed "
                    "instruction with the registers it changed and the control-flow "
                    "stacks after it.")
    _common(trace_parser)
    trace_parser.add_argument("--vertex", type=int, default=0, metavar="K",
                              help="which input vertex (row) to trace (default: 0)")
    trace_parser.set_defaults(handler=_trace)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shader", metavar="SHADER", help=".shbin file or assembly source")
    parser.add_argument("--inputs", required=True, metavar="FILE",
                        help="vertex inputs: .npy, .npz, .json or .csv")
    parser.add_argument("--uniforms", metavar="FILE", help="uniform values: .json")
    parser.add_argument("--dvle", type=int, default=0, metavar="N",
                        help="which DVLE (executable) of the SHBIN to run (default: 0)")
    parser.add_argument("--precision", choices=("f24", "f32"), default="f24",
                        help="float24 (default) or float32 arithmetic")
    parser.add_argument("--max-steps", type=int, default=100_000, metavar="N",
                        help="instructions per vertex before reporting a hang")


# -- loading ------------------------------------------------------------------------------


def load_shader(path: str) -> Shbin:
    data = read_input(path, limit=MAX_SHADER_BYTES)
    if data[:4] == _SHBIN_MAGIC:
        try:
            return Shbin.from_bytes(data)
        except GpuIsaError as error:
            raise InputError(f"{path}: {error}") from None
    from .asm import assemble  # only needed for source files

    return assemble([(path, data.decode("utf-8", errors="surrogateescape"))])


def load_inputs(path: str) -> dict[str, object]:
    suffix = Path(path).suffix.lower()
    if suffix == ".npy":
        array = load_npy(path)
        if array.ndim == 3:
            return {f"v{k}": array[:, k] for k in range(array.shape[1])}
        return {"v0": array}
    if suffix == ".npz":
        return dict(load_npz(path))
    if suffix == ".json":
        data = load_json(path)
        if not isinstance(data, dict):
            raise InputError(f"{path}: expected a JSON object of register names to arrays")
        return {name: _floats(value, f"{path}: {name}") for name, value in data.items()}
    if suffix == ".csv":
        return _csv(path)
    raise InputError(f"{path}: unknown input file type {suffix or '(none)'!r}; use .npy, "
                     f".npz, .json or .csv")


def load_uniforms(path: str) -> dict[str, object]:
    if Path(path).suffix.lower() != ".json":
        raise InputError(f"{path}: uniforms are read from a .json file")
    data = load_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object of uniform names to values")
    return {name: _uniform(value, f"{path}: {name}") for name, value in data.items()}


def _floats(value: object, where: str) -> object:
    """Nested lists with "inf"/"-inf"/"nan" strings turned into floats."""
    if isinstance(value, list):
        return [_floats(v, where) for v in value]
    if isinstance(value, str):
        if value.lower() in SPECIAL_NUMBERS:
            return SPECIAL_NUMBERS[value.lower()]
        raise InputError(f"{where}: {value!r} is not a number")
    return value


def _uniform(value: object, where: str) -> object:
    if isinstance(value, dict):
        if set(value) != {"f24"}:
            raise InputError(f"{where}: an object value must be {{\"f24\": [patterns]}}")
        return F24Bits(_patterns(value["f24"], where))
    return _floats(value, where)


def _patterns(value: object, where: str) -> object:
    if isinstance(value, list):
        return [_patterns(v, where) for v in value]
    if isinstance(value, str):
        try:
            return int(value, 0)
        except ValueError:
            raise InputError(f"{where}: {value!r} is not an integer pattern") from None
    return value


def _csv(path: str) -> dict[str, object]:
    text = read_input(path).decode("utf-8-sig", errors="replace")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise InputError(f"{path}: empty CSV file")
    header = [h.strip() for h in rows[0]]
    columns: dict[str, dict[str, int]] = {}
    for i, name in enumerate(header):
        register, dot, comp = name.rpartition(".")
        if not dot or comp not in _COMPONENTS or not register:
            raise InputError(f"{path}:1: column {name!r} is not NAME.x/.y/.z/.w")
        if comp in columns.setdefault(register, {}):
            raise InputError(f"{path}:1: column {name!r} appears twice")
        columns[register][comp] = i
    for register, comps in columns.items():
        missing = [c for c in _COMPONENTS if c not in comps]
        if missing:
            raise InputError(f"{path}:1: {register} has no column {register}.{missing[0]}")
    values = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(f"{path}:{line}: {len(row)} fields, the header has "
                             f"{len(header)}")
        try:
            values.append([float(cell) for cell in row])
        except ValueError:
            raise InputError(f"{path}:{line}: not a number in {row!r}") from None
    if not values:
        raise InputError(f"{path}: no vertex rows")
    table = np.array(values)
    return {register: table[:, [comps[c] for c in _COMPONENTS]]
            for register, comps in columns.items()}


# -- run ----------------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    if args.format == "npz" and not args.output:
        raise InputError("--format npz writes a binary file: give -o OUT")
    shader = load_shader(args.shader)
    inputs = load_inputs(args.inputs)
    uniforms = load_uniforms(args.uniforms) if args.uniforms else None
    result = run(shader, inputs, uniforms=uniforms, dvle=args.dvle, precision=args.precision,
                 engine=args.engine, max_steps=args.max_steps)
    if args.format == "npz":
        write_output(args.output, npz_bytes(result))
        return 0
    as_text = json_text(as_json(result)) if args.format == "json" else None
    text = as_text if as_text is not None else table(result, shader, args.dvle)
    if args.output:
        write_output(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)
    return 0


def _jsonable(array: np.ndarray) -> object:
    if array.dtype.kind == "f":
        return [_jsonable(a) for a in array] if array.ndim else _json_number(float(array))
    return array.tolist()


def _json_number(value: float) -> object:
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def as_json(result: RunResult) -> dict[str, object]:
    out: dict[str, object] = {
        "precision": result.precision,
        "outputs": {k: _jsonable(v) for k, v in result.outputs.items()},
        "outputs_by_semantic": {k: _jsonable(v) for k, v in result.outputs_by_semantic.items()},
        "temporaries": {k: _jsonable(v) for k, v in result.temporaries.items()},
        "cmp": result.cmp.tolist(),
        "address": result.address.tolist(),
        "steps": result.steps.tolist(),
    }
    if result.vertices is not None:
        out["vertices"] = {k: _jsonable(v) for k, v in result.vertices.items()}
        out["primitives"] = result.primitives.tolist()
        out["windings"] = result.windings.tolist()
    return out


def json_text(data: dict[str, object]) -> str:
    """JSON with one line per register: groups of arrays are broken up, arrays are not."""
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            inner = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
            body = "{\n" + ",\n".join(inner) + "\n }" if inner else "{}"
            lines.append(f" {json.dumps(key)}: {body}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def npz_bytes(result: RunResult) -> bytes:
    arrays: dict[str, np.ndarray] = {}
    for group in ("outputs", "outputs_by_semantic", "temporaries", "vertices"):
        for name, value in (getattr(result, group) or {}).items():
            arrays[f"{group}/{name}"] = value
    for name in ("cmp", "address", "steps", "primitives", "windings"):
        value = getattr(result, name)
        if value is not None:
            arrays[name] = value
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _semantics(shader: object, dvle: int) -> dict[int, str]:
    """Output register -> semantic text from the DVLE output table."""
    if not isinstance(shader, Shbin):
        return {}
    names: dict[int, list[str]] = {}
    for entry in executable(shader, dvle).dvle.outputs:
        name = entry.semantic.name.lower() if hasattr(entry.semantic, "name") else str(
            entry.semantic)
        if entry.mask != 0xF:
            name += "." + entry.components
        names.setdefault(entry.register, []).append(name)
    return {r: "+".join(v) for r, v in names.items()}


def _rows_text(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [c.rjust(w) if i >= len(row) - 4 else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def table(result: RunResult, shader: object, dvle: int) -> str:
    semantics = _semantics(shader, dvle)
    registers = sorted(semantics) if semantics else range(len(result.outputs))
    what = "invocation" if result.vertices is not None else "vertex"
    rows = [[what, "register", "semantic", "x", "y", "z", "w"]]
    for lane in range(result.steps.shape[0]):
        for r in registers:
            values = result.outputs[f"o{r}"][lane]
            rows.append([str(lane), f"o{r}", semantics.get(r, ""),
                         *(number(v) for v in values)])
    text = _rows_text(rows)
    if result.vertices is not None:
        names = list(result.vertices)
        count = len(result.vertices[names[0]]) if names else 0
        text += f"\nemitted vertices: {count}\n"
        vrows = [["vertex", "register", "x", "y", "z", "w"]]
        for k in range(count):
            for name in names:
                vrows.append([str(k), name, *(number(v) for v in result.vertices[name][k])])
        if count:
            text += _rows_text(vrows)
        text += f"primitives: {len(result.primitives)}\n"
        for k, (tri, wind) in enumerate(zip(result.primitives.tolist(),
                                            result.windings.tolist(), strict=True)):
            text += f"  {k}: {tri[0]} {tri[1]} {tri[2]}{'  (winding)' if wind else ''}\n"
    return text


# -- trace --------------------------------------------------------------------------------


def _trace(args: argparse.Namespace) -> int:
    shader = load_shader(args.shader)
    inputs = load_inputs(args.inputs)
    uniforms = load_uniforms(args.uniforms) if args.uniforms else None
    record = trace(shader, inputs, vertex=args.vertex, uniforms=uniforms, dvle=args.dvle,
                   precision=args.precision, max_steps=args.max_steps)
    sys.stdout.write(trace_table(record))
    if record.error is not None:
        raise record.error
    return 0


def trace_table(record: Trace) -> str:
    rows = [["step", "pc", "word", "instruction", "changes", "stacks"]]
    for step in record.steps:
        changes = " ".join(f"{name}={value}" for name, value in step.changes) or "-"
        rows.append([str(step.number), f"{step.pc:03X}", f"{step.word:08X}", step.text,
                     changes, step.stacks])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    return "\n".join(lines) + "\n"

