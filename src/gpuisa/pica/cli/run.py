"""``pica run`` and ``pica trace``: execute a shader on vertices from a file.

``pica run SHADER --inputs FILE [--uniforms FILE] [--dvle N] [--precision f24|f32]
[--rounding nearest-even|truncate] [--format table|json|npz] [-o OUT]`` runs every
vertex and prints (or writes) the outputs.  ``pica trace SHADER --inputs FILE [--vertex
K] ...`` runs one vertex and prints each executed instruction, the registers it changed
and the control-flow stacks after it.

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
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

import numpy as np

from ...cli_support import integer
from ...datafiles import (
    MAX_SHADER_BYTES,
    STDIN,
    file_type,
    json_numbers,
    load_json,
    load_npy,
    load_npz,
    read_input,
)
from ...errors import GpuIsaError, InputError
from ...fileio import STDOUT, write_output
from ..engine import F24Bits, RunResult, run, run_pipeline
from ..engine.api import engine_names, executable
from ..engine.compiled import runner as _jit  # noqa: F401  (registers engine='jit')
from ..engine.loading import DEFAULT_ROUNDING, ROUNDINGS
from ..engine.trace import Trace, TraceStep, trace, trace_primitive
from ..isa import NUM_INPUTS
from ..render.animate import progress_printer
from ..shbin import ShaderType, Shbin
from .common import source_text
from .table import ROWS_PER_CHUNK, Columns, table_chunks

_COMPONENTS = "xyzw"
_SHBIN_MAGIC = b"DVLB"


#: How the input and uniform files are laid out (the epilog of run and trace --help).
INPUT_LAYOUTS = """\
input files (--inputs): each input register is named vN or by the DVLE's .in name
  .json  {"inpos": [[x, y, z, w], ...], "v1": [...]}: rows of four numbers ("inf",
         "-inf", "nan" as strings)
  .csv   a header of NAME.x,NAME.y,NAME.z,NAME.w columns per input, then one row per
         vertex: inpos.x,inpos.y,inpos.z,inpos.w,v1.x,...
  .npy   (N, 4): v0; (N, k, 4): v0 .. v(k-1)
  .npz   one (N, 4) array per input, named vN or by its .in name
uniform files (--uniforms, --gs-uniforms): .json {"NAME": value}, NAME a declared
  uniform or c0-c95 / i0-i3 / b0-b15; a float uniform is [x, y, z, w] (an array of N
  rows: [[...], ...]), an integer one [x, y, z, w], a boolean true/false; {"f24":
  ["0x3f0000", ...]} gives raw float24 patterns.  The DVLE's constants apply on their own.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    run_parser = subparsers.add_parser(
        "run", help="run a shader on vertices from a file",
        description="Run a vertex shader on every vertex of the input file (a geometry "
                    "shader once per input row) and print its outputs.",
        epilog=INPUT_LAYOUTS, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(run_parser)
    run_parser.add_argument("--format", choices=("table", "json", "npz"), default="table",
                            help="output format (default: table; npz needs -o)")
    run_parser.add_argument("-o", "--output", metavar="OUT", help="write here, not stdout")
    run_parser.add_argument("--registers", action="store_true",
                            help="json/npz: also write the temporaries, flags (cmp), "
                            "address registers and step counts of every vertex")
    run_parser.add_argument("--engine", choices=engine_names(), default="auto",
                            help="execution engine (default: auto, the one expected to finish "
                            "first)")
    run_parser.set_defaults(handler=_naming_uniforms(_run))

    trace_parser = subparsers.add_parser(
        "trace", help="run one vertex and print every executed instruction",
        description="Run one vertex on the reference engine and print each executed "
                    "instruction with the registers it changed and the control-flow "
                    "stacks after it.",
        epilog=INPUT_LAYOUTS, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(trace_parser)
    trace_parser.add_argument("--vertex", type=integer("--vertex", 0), default=0, metavar="K",
                              help="which input vertex (row) to trace (default: 0)")
    trace_parser.add_argument("--primitive", type=integer("--primitive", 0), metavar="K",
                              help="with --gsh: which geometry shader invocation (input "
                              "primitive) to trace; the ones before it run untraced")
    trace_parser.set_defaults(handler=_naming_uniforms(_trace))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shader", metavar="SHADER", help=".shbin file or assembly source")
    parser.add_argument("--inputs", required=True, metavar="FILE",
                        help="vertex inputs: .npy, .npz, .json or .csv")
    parser.add_argument("--uniforms", metavar="FILE", help="uniform values: .json")
    parser.add_argument("--dvle", type=integer("--dvle", 0), metavar="N",
                        help="which DVLE (executable) of the SHBIN to run (default: 0; "
                        "with --gsh: the first vertex shader DVLE)")
    add_pipeline_options(parser)
    add_precision_options(parser)
    parser.add_argument("--max-steps", type=integer("--max-steps", 1), default=100_000,
                        metavar="N",
                        help="instructions per vertex before reporting a hang")


def add_precision_options(parser: argparse.ArgumentParser) -> None:
    """--precision and --rounding (shared with ``pica render``; :func:`rounding`)."""
    parser.add_argument("--precision", choices=("f24", "f32"), default="f24",
                        help="float24 (default) or float32 arithmetic")
    parser.add_argument("--rounding", choices=ROUNDINGS,
                        help="f24's rounding of inputs, uniforms and every result: "
                        "nearest-even (default) or truncate (toward zero, the conversion "
                        "of Citra PR #7372); f32 rounds to nearest even only")


def rounding(args: argparse.Namespace) -> str:
    """The rounding --rounding asks for; an error with --precision f32, whose arithmetic
    rounds to nearest even (IEEE float32) and cannot truncate."""
    if args.rounding is None:
        return DEFAULT_ROUNDING
    if args.precision == "f32" and args.rounding != DEFAULT_ROUNDING:
        raise InputError(f"--rounding {args.rounding} needs --precision f24 (f32 arithmetic "
                         f"rounds to nearest even, as IEEE float32 does)")
    return args.rounding


def add_pipeline_options(parser: argparse.ArgumentParser) -> None:
    """--gsh and the options of the geometry stage (shared with ``pica render``)."""
    parser.add_argument("--gsh", type=integer("--gsh", 0), metavar="N",
                        help="run the vertex DVLE, then geometry shader DVLE N on the "
                        "primitive stream it produces (as run_pipeline)")
    parser.add_argument("--gs-uniforms", metavar="FILE",
                        help="with --gsh: the geometry shader's uniforms (.json; its unit "
                        "has its own registers)")
    parser.add_argument("--stride", type=integer("--stride", 1, NUM_INPUTS), metavar="N",
                        help="with --gsh, point mode: geometry input registers per "
                        "invocation (default: the vertex shader's output count)")
    parser.add_argument("--primitive-sizes", metavar="N,N,...", type=_sizes,
                        help="with --gsh, variable mode: vertices of each primitive "
                        "(default: all vertices form one primitive)")


def _sizes(text: str) -> list[int]:
    size = integer("--primitive-sizes", 1)
    return [size(part) for part in text.split(",")]


def check_pipeline_options(args: argparse.Namespace) -> None:
    if args.gsh is not None:
        return
    for flag, value in (("--gs-uniforms", args.gs_uniforms), ("--stride", args.stride),
                        ("--primitive-sizes", args.primitive_sizes),
                        ("--primitive", getattr(args, "primitive", None))):
        if value is not None:
            raise InputError(f"{flag} needs --gsh N")


def _naming_uniforms(handler: Callable[[argparse.Namespace], int]
                     ) -> Callable[[argparse.Namespace], int]:
    """``handler`` whose "uniform c4 is read but was not given" says the name the DVLE
    declares and the option that gives it (the shader is loaded again for the names:
    only on that error, and standard input is read once per command)."""
    def named(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except InputError as error:
            from ..render.stages import UNSET_UNIFORM, name_unset_uniform

            if not UNSET_UNIFORM.fullmatch(str(error)):
                raise
            shader = load_shader(args.shader)
            dvles = (args.dvle or 0, args.gsh)
            raise name_unset_uniform(error, shader, dvles, _UNIFORM_FIXES) from None

    return named


#: The option that gives a uniform of each stage its value.
_UNIFORM_FIXES = {ShaderType.VERTEX: "give it with --uniforms FILE",
                  ShaderType.GEOMETRY: "give it with --gs-uniforms FILE"}


def check_entries(args: argparse.Namespace, shader: object) -> None:
    """--dvle and --gsh name DVLEs the SHBIN has (the engine says so too, but by its
    parameters' names)."""
    count = len(shader.entries) if isinstance(shader, Shbin) else 1
    for option, index in (("--dvle", args.dvle), ("--gsh", args.gsh)):
        if index is not None and index >= count:
            raise InputError(f"{option} {index}: the SHBIN has DVLEs 0..{count - 1}")
    if args.gsh is None or not isinstance(shader, Shbin):
        return
    kind = shader.entries[args.gsh].shader_type
    if kind != ShaderType.GEOMETRY:
        geometry = [str(k) for k, e in enumerate(shader.entries)
                    if e.shader_type == ShaderType.GEOMETRY]
        raise InputError(f"--gsh {args.gsh}: DVLE {args.gsh} is a {kind.name.lower()} shader; "
                         f"the geometry shader DVLEs are: {', '.join(geometry) or 'none'}")
    stride = args.stride
    vertex = args.dvle if args.dvle is not None else next(
        (k for k, e in enumerate(shader.entries) if e.shader_type == ShaderType.VERTEX), 0)
    outputs = len(executable(shader, vertex).output_registers)
    if stride is not None and outputs and (stride % outputs or stride > NUM_INPUTS):
        raise InputError(f"--stride {stride}: give a multiple of the vertex shader's "
                         f"{outputs} output registers per vertex, at most {NUM_INPUTS} (one "
                         f"vertex per invocation: {outputs}; three: {3 * outputs})")


def pipeline_arguments(args: argparse.Namespace) -> dict[str, object]:
    """Keyword arguments of run_pipeline/trace_primitive from the command line."""
    return dict(gs_uniforms=load_uniforms(args.gs_uniforms) if args.gs_uniforms else None,
                vs_dvle=args.dvle, gs_dvle=args.gsh, stride=args.stride,
                primitive_sizes=args.primitive_sizes)


# -- loading ------------------------------------------------------------------------------


def load_shader(path: str, command: str = "pica run") -> Shbin:
    data = read_input(path, limit=MAX_SHADER_BYTES)
    if data[:4] == _SHBIN_MAGIC:
        try:
            return Shbin.from_bytes(data)
        except GpuIsaError as error:
            raise InputError(f"{path}: {error}") from None
    from ..asm import assemble  # only needed for source files

    return assemble([(path, source_text(path, data, command))])


def load_inputs(path: str) -> dict[str, object]:
    suffix = file_type(path)
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
        return {name: json_numbers(value, f"{path}: {name}") for name, value in data.items()}
    if suffix == ".csv":
        return _csv(path)
    raise InputError(f"{path}: unknown input file type {suffix or '(none)'!r}; use .npy, "
                     f".npz, .json or .csv")


def load_uniforms(path: str) -> dict[str, object]:
    if path != STDIN and Path(path).suffix.lower() != ".json":
        raise InputError(f"{path}: uniforms are read from a .json file")
    data = load_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object of uniform names to values")
    return {name: _uniform(value, f"{path}: {name}") for name, value in data.items()}


def _uniform(value: object, where: str) -> object:
    if isinstance(value, dict):
        if set(value) != {"f24"}:
            raise InputError(f"{where}: an object value must be {{\"f24\": [patterns]}}")
        return F24Bits(_patterns(value["f24"], where))
    return json_numbers(value, where)


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
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        rows = list(reader)
    except csv.Error as error:  # a field over the csv module's size limit, a stray quote
        raise InputError(f"{path}:{reader.line_num}: not a readable CSV row ({error})")\
            from None
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
    check_entries(args, shader)
    inputs = load_inputs(args.inputs)
    uniforms = load_uniforms(args.uniforms) if args.uniforms else None
    check_pipeline_options(args)
    if args.gsh is None:
        dvle = args.dvle or 0
        result = run(shader, inputs, uniforms=uniforms, dvle=dvle, precision=args.precision,
                     rounding=rounding(args), engine=args.engine, max_steps=args.max_steps,
                     registers=args.registers)
    else:
        if not isinstance(shader, Shbin):
            raise InputError("--gsh needs a SHBIN or source with a geometry shader DVLE")
        dvle = args.gsh
        result = run_pipeline(shader, inputs, uniforms=uniforms, precision=args.precision,
                              rounding=rounding(args), engine=args.engine, max_steps=args.max_steps,
                              registers=args.registers, **pipeline_arguments(args)).geometry
    if args.format == "npz":
        chunks: Iterable[bytes] = (npz_bytes(result, shader, dvle,
                                             registers=args.registers),)
    elif args.format == "json":
        chunks = json_chunks(result, shader, dvle, registers=args.registers)
    else:
        lanes = len(next(iter(result.outputs.values())))
        chunks = table_chunks(result, _semantics(shader, dvle), _progress(args.output, lanes))
    write_output(args.output or STDOUT, chunks)
    return 0


def _json_rows(array: np.ndarray) -> Iterator[str]:
    """The JSON text of an array's rows, a chunk at a time (comma-separated, no brackets);
    non-finite floats become "inf", "-inf" and "nan"."""
    for start in range(0, len(array), ROWS_PER_CHUNK):
        block = array[start : start + ROWS_PER_CHUNK]
        if block.dtype.kind == "f" and not np.isfinite(block).all():
            items: object = _with_special_numbers(block)
        else:
            items = block.tolist()
        yield json.dumps(items)[1:-1]


def _with_special_numbers(block: np.ndarray) -> object:
    if block.ndim == 0:
        value = float(block)
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return [_with_special_numbers(row) for row in block]


def _json_array(array: np.ndarray) -> Iterator[str]:
    if array.ndim == 0:
        yield json.dumps(_with_special_numbers(array) if array.dtype.kind == "f"
                         else array.item())
        return
    yield "["
    for k, text in enumerate(_json_rows(array)):
        yield (", " + text) if k and text else text
    yield "]"


Written = np.ndarray | Mapping[str, np.ndarray]


def _result_items(result: RunResult, shader: object, dvle: int, registers: bool
                  ) -> list[tuple[str, Written]]:
    """What a run writes, in order: the outputs the DVLE maps (every output register
    without an output table) and their semantics, and the emitted vertices and
    primitives; every other register, the flags and step counts only when asked for."""
    mapped = _mapped_outputs(shader, dvle)
    outputs = result.outputs
    by_semantic = result.outputs_by_semantic
    if mapped and not registers:
        outputs = {f"o{r}": outputs[f"o{r}"] for r in sorted(mapped)}
        by_semantic = {name: by_semantic[name] for name in by_semantic
                       if name in set().union(*mapped.values())}
    items: list[tuple[str, Written]] = [
        ("outputs", outputs), ("outputs_by_semantic", by_semantic)]
    if registers:
        items += [("temporaries", result.temporaries), ("cmp", result.cmp),
                  ("address", result.address), ("steps", result.steps)]
    if result.vertices is not None:
        items += [("vertices", result.vertices), ("primitives", result.primitives),
                  ("windings", result.windings)]
    return items


def json_chunks(result: RunResult, shader: object = None, dvle: int = 0, *,
                registers: bool = False) -> Iterator[bytes]:
    """The result as JSON, one line per register, produced piecewise."""
    yield (f'{{\n "precision": {json.dumps(result.precision)},\n'
           f' "rounding": {json.dumps(result.rounding)}').encode()
    for key, value in _result_items(result, shader, dvle, registers):
        yield f",\n {json.dumps(key)}: ".encode()
        if isinstance(value, Mapping):
            if not value:
                yield b"{}"
                continue
            for k, (name, array) in enumerate(value.items()):
                yield f"{'{' if k == 0 else ','}\n  {json.dumps(name)}: ".encode()
                yield from (text.encode() for text in _json_array(array))
            yield b"\n }"
        else:
            yield from (text.encode() for text in _json_array(value))
    yield b"\n}\n"


def npz_bytes(result: RunResult, shader: object = None, dvle: int = 0, *,
              registers: bool = False) -> bytes:
    arrays: dict[str, np.ndarray] = {}
    for key, value in _result_items(result, shader, dvle, registers):
        if isinstance(value, Mapping):
            arrays.update((f"{key}/{name}", array) for name, array in value.items())
        else:
            arrays[key] = value
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _output_names(shader: object, dvle: int) -> list[tuple[int, str, str]]:
    """(register, semantic name, components) of each entry of the DVLE output table."""
    if not isinstance(shader, Shbin):
        return []
    return [(entry.register,
             entry.semantic.name.lower() if hasattr(entry.semantic, "name")
             else str(entry.semantic),
             "" if entry.mask == 0xF else entry.components)
            for entry in executable(shader, dvle).dvle.outputs]


def _mapped_outputs(shader: object, dvle: int) -> dict[int, set[str]]:
    """Output register -> the semantic names the DVLE's output table maps it to."""
    names: dict[int, set[str]] = {}
    for register, name, _ in _output_names(shader, dvle):
        names.setdefault(register, set()).add(name)
    return names


def _semantics(shader: object, dvle: int) -> dict[int, str]:
    """Output register -> semantic text ("color.xy+texcoord0") for the table."""
    names: dict[int, list[str]] = {}
    for register, name, components in _output_names(shader, dvle):
        names.setdefault(register, []).append(f"{name}.{components}" if components else name)
    return {r: "+".join(v) for r, v in names.items()}


def _progress(output: str | None, lanes: int) -> Callable[[int], None]:
    """Progress of a table going to a file or a pipe (on a terminal, the table itself
    shows it): "vertices k/N" on standard error when that is a terminal."""
    if output in (None, STDOUT) and sys.stdout.isatty():
        return lambda done: None
    return progress_printer(lanes, "vertices")


# -- trace --------------------------------------------------------------------------------


def _trace(args: argparse.Namespace) -> int:
    shader = load_shader(args.shader, "pica trace")
    check_entries(args, shader)
    inputs = load_inputs(args.inputs)
    uniforms = load_uniforms(args.uniforms) if args.uniforms else None
    check_pipeline_options(args)
    table = _TraceTable()
    if args.gsh is None:
        record = trace(shader, inputs, vertex=args.vertex, uniforms=uniforms,
                       dvle=args.dvle or 0, precision=args.precision,
                       rounding=rounding(args), max_steps=args.max_steps, observer=table.add)
    else:
        if not isinstance(shader, Shbin):
            raise InputError("--gsh needs a SHBIN or source with a geometry shader DVLE")
        record = trace_primitive(shader, inputs, primitive=args.primitive or 0,
                                 uniforms=uniforms, precision=args.precision,
                                 rounding=rounding(args), max_steps=args.max_steps,
                                 observer=table.add,
                                 **pipeline_arguments(args))
    table.flush()
    if record.error is not None:
        raise record.error
    return 0


_TRACE_HEADER = ["step", "pc", "word", "instruction", "changes", "stacks"]
#: Steps printed at a time by ``pica trace`` (a trace this long is aligned as a whole).
_TRACE_ROWS = 256


def _trace_row(step: TraceStep) -> list[str]:
    changes = " ".join(f"{name}={value}" for name, value in step.changes) or "-"
    return [str(step.number), f"{step.pc:03X}", f"{step.word:08X}", step.text, changes,
            step.stacks]


class _TraceTable:
    """``pica trace``'s table, printed as the steps execute, :data:`_TRACE_ROWS` at a
    time (a closed standard output stops the trace: BrokenPipeError)."""

    def __init__(self) -> None:
        self.columns = Columns(right=0)
        self.rows = [_TRACE_HEADER]

    def add(self, step: TraceStep) -> None:
        self.rows.append(_trace_row(step))
        if len(self.rows) >= _TRACE_ROWS:
            self.flush()

    def flush(self) -> None:
        sys.stdout.write(self.columns.text(self.rows))
        sys.stdout.flush()
        self.rows = []


def trace_table(record: Trace) -> str:
    """A whole trace as one aligned table (what ``pica trace`` prints for it)."""
    return Columns(right=0).text([_TRACE_HEADER, *map(_trace_row, record.steps)])

