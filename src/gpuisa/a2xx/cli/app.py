"""The ``a2xx`` command line: ``disasm``, ``asm``, ``run``, ``trace``, ``info``,
``vectors`` (:mod:`.vectors`) and ``render`` (:mod:`.render`).

Binary programs are recognised by content (:mod:`.containers`): an XDK shader container,
a Xenia dump (``shader_<HASH>.ucode.bin.vert`` / ``.frag``) or raw microcode in either
byte order (``--byte-order`` forces one); the shader type comes from the file where it
says it.  Text is hex words (32-bit words separated by whitespace or commas, optional
``0x``, comments from ``#`` or ``;`` to the end of the line); Xenia's disassembly text
(``shader_<HASH>.ucode.vert``) is read through the microcode dump beside it.
``--input-format`` overrides the guess; ``a2xx run`` also accepts assembly source.  Every
failure prints ``a2xx: error: FILE: message`` on stderr and exits with status 1; output
files are written atomically and never when there is an error.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

from ... import __version__
from ...cli_support import dispatch, integer
from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import InputError
from ...fileio import STDOUT, write_output, write_text
from ..asm import toolchain_notes
from ..containers import (
    ShaderFile,
    constant_table_lines,
    literal_line,
    semantic_lines,
    xenia_hash,
)
from ..disasm import STYLES, disassemble
from ..encoding import words_to_bytes
from ..engine import run_fragment, run_vertex
from ..engine.api import DEFAULT_MAX_STEPS
from ..engine.attributes import bind_arguments
from ..engine.files import load_inputs
from ..engine.report import result_json, result_npz, result_table
from ..engine.state import MAX_INVOCATIONS
from ..engine.trace import format_trace, trace
from ..toolchains import TOOLCHAINS
from ..xdk_asm import looks_like_xdk_listing
from ..xdk_container import DEFAULT_CREATOR, assemble_xdk_container
from ..xdk_text import disassemble_xdk
from ..xna_asm import looks_like_xenia_listing
from . import render, vectors
from .common import (
    PROG,
    about,
    assemble_source,
    assemble_xdk_listing,
    assemble_xenia_listing,
    emulator_config,
    input_format_options,
    read_shader,
    render_diagnostic,
    resolve_type,
    shader_type_option,
    stage_constants,
)


def _disasm(args: argparse.Namespace) -> int:
    with about(args.file):
        words, shader = read_shader(args.file, args.input_format, byte_order=args.byte_order)
        shader_type = resolve_type(args.type, shader, "vertex")
        text = disassemble(words, shader_type, raw=args.raw, style=args.style)  # type: ignore[arg-type]
        if args.style == "xdk" and shader is not None and shader.format == "xdk":
            # The XDK's own header names the container's constants (defconst/dcl/def).
            text = disassemble_xdk(words, shader_type, declared=shader)
    if shader is not None and shader.format == "xdk" and not args.no_constants \
            and args.style != "xdk":
        # The container's names for its constants and its literals, as a comment both
        # assemblers skip.
        comment = "; " if args.style == "mesa" else "// "
        header = [f"constant table ({shader.target}):", *constant_table_lines(shader.constants)]
        header += [literal_line(lit) for lit in shader.literals]
        header += semantic_lines(shader.vertex_elements, shader.interpolators)
        text = "".join(f"{comment}{line}\n" for line in header) + text
    if shader is not None and shader.format == "xdk" and args.style == "mesa":
        # What a2xx asm needs to give the container's words back: the XDK compiler's
        # fills, and what neither Mesa's text nor those fills give.
        centroid = next((i.register for i in shader.interpolators if i.centroid), None)
        text = "; toolchain: xdk\n" + toolchain_notes(text, words, centroid=centroid) + text
    write_text(args.output or STDOUT, text)
    return 0


def _asm(args: argparse.Namespace) -> int:
    if not args.output and not args.hex:
        raise InputError("give -o OUT for the binary (or --hex to print hex words)")
    if args.container and (args.hex or not args.output):
        raise InputError("--container writes a binary file: give -o OUT, not --hex")
    if args.creator is not None and not args.container:
        raise InputError("--creator names the container's compiler: give --container too")
    with about(args.file):
        data = read_input(args.file, limit=MAX_SHADER_BYTES)
        text = data.decode("utf-8", errors="surrogateescape")
        syntax = args.syntax
        if syntax == "auto":
            syntax = "xenia-text" if looks_like_xenia_listing(text) else "mesa"
            syntax = "xdk" if looks_like_xdk_listing(text) else syntax
        if args.container:
            if args.syntax not in ("auto", "xdk"):
                raise InputError(f"--container reads the XDK's listing, not --syntax "
                                 f"{args.syntax}")
            if looks_like_xdk_listing(text):
                assemble_xdk_listing(text, args.file)  # its notes, before the container
            # Any other text is refused at its first line (container_from_listing).
            data = assemble_xdk_container(text, filename=args.file, creator=args.creator)
            write_output(args.output, data)
            return 0
        if syntax == "xdk":
            words = list(assemble_xdk_listing(text, args.file).words)
        elif syntax == "mesa":
            result = assemble_source(text, args.file, args.toolchain)
            if args.werror and result.warnings:
                raise InputError(f"{args.file}: warnings treated as errors (--Werror)")
            words = list(result.words)
        else:
            canary = {"xenia": False, "xenia-canary": True}.get(syntax)
            words = list(assemble_xenia_listing(text, args.file, canary).words)
    if args.hex:
        lines = [" ".join(f"{w:08x}" for w in words[i : i + 3]) for i in range(0, len(words), 3)]
        write_text(args.output or STDOUT, "\n".join(lines) + "\n")
    else:
        write_output(args.output, words_to_bytes(words))
    return 0


@dataclass(frozen=True, slots=True)
class _RunInputs:
    """What ``a2xx run`` and ``a2xx trace`` run: the program and its inputs."""

    words: tuple[int, ...]
    shader: ShaderFile | None
    shader_type: str
    arguments: dict[str, object]  # run_vertex / run_fragment keyword arguments


def _run_inputs(args: argparse.Namespace) -> _RunInputs:
    emulator_config(args, None)  # a bad option is reported before anything is read
    with about(args.file):
        words, shader = read_shader(
            args.file, args.input_format, allow_asm=True, byte_order=args.byte_order
        )
        shader_type = resolve_type(args.type, shader, None)
    config = emulator_config(args, shader)
    kwargs: dict[str, object] = {"config": config, "max_steps": args.max_steps}
    kwargs |= stage_constants(shader, args.constants)
    inputs: dict[str, object] = {}
    if args.inputs:
        with about(args.inputs):
            inputs = load_inputs(args.inputs, vertex_elements=bool(
                shader is not None and shader.vertex_elements))
    attributes = inputs.pop("attributes", None)
    if shader_type == "vertex":
        count = inputs.pop("count", None)
        kwargs |= inputs
        kwargs["count"] = args.count if args.count is not None else count
        words = _bind_attributes(args, words, shader, attributes, kwargs)
    else:
        if args.count is not None:
            raise InputError("--count is for vertex shaders; fragments come from --inputs")
        if attributes is not None:
            raise InputError(
                f"--inputs {args.inputs}: attributes are a vertex shader's inputs; a pixel "
                "shader's come as interpolants"
            )
        if not inputs.get("registers"):
            raise InputError("a pixel shader run needs --inputs with the interpolants")
        if inputs.get("vertex_buffers"):
            kwargs["vertex_buffers"] = inputs["vertex_buffers"]
        kwargs["interpolants"] = inputs["registers"]
    return _RunInputs(words, shader, shader_type, kwargs)


def _bind_attributes(
    args: argparse.Namespace, words: tuple[int, ...], shader: ShaderFile | None,
    attributes: object, kwargs: dict[str, object],
) -> tuple[int, ...]:
    """An XDK vertex shader's fetch templates patched for the semantics of ``--inputs``
    (a2xx-formats.md#xdk-vertex-input); the buffers and fetch constants they read join
    ``kwargs``."""
    elements = shader.vertex_elements if shader is not None else ()
    if attributes is None and not elements:
        return words
    # Problems with the data concern the inputs file; a missing one, the program.
    with about(args.file if attributes is None else f"--inputs {args.inputs}"):
        words, bound = bind_arguments(words, elements, kwargs["config"],  # type: ignore[arg-type]
                                      kwargs | {"attributes": attributes})
    kwargs |= bound
    return words


def _run(args: argparse.Namespace) -> int:
    if args.format == "npz" and not args.output:
        raise InputError("--format npz writes a binary file: give -o OUT")
    run = _run_inputs(args)
    # Run-time problems concern the program; input problems name the argument at fault.
    with about(args.file):
        if run.shader_type == "vertex":
            result = run_vertex(run.words, **run.arguments)  # type: ignore[arg-type]
        else:
            result = run_fragment(run.words, **run.arguments)  # type: ignore[arg-type]
    if args.format == "npz":
        write_output(args.output, result_npz(result))
        return 0
    text = result_json(result) if args.format == "json" else result_table(result)
    write_text(args.output or STDOUT, text)
    return 0


def _trace(args: argparse.Namespace) -> int:
    run = _run_inputs(args)
    shader = run.shader
    with about(args.file):
        steps = trace(
            run.words,
            run.shader_type,
            invocation=args.invocation,
            constants=shader.constants if shader is not None else (),
            elements=shader.vertex_elements if shader is not None else (),
            **run.arguments,
        )
    text = format_trace(steps, run.shader_type)
    write_text(args.output or STDOUT, text)
    return 0


_FORMAT_NAMES = {
    "xdk": "XDK shader container",
    "xenia-dump": "Xenia shader dump",
    "raw": "raw microcode",
    "xenia-text": "Xenia's disassembly text, assembled",
}


def _info(args: argparse.Namespace) -> int:
    with about(args.file):
        words, shader = read_shader(args.file, args.input_format, byte_order=args.byte_order)
    lines = [f"{args.file}: " + (_FORMAT_NAMES[shader.format] if shader else "hex words")]
    if shader is not None and shader.shader_type:
        lines.append(f"  type:        {shader.shader_type} shader")
    order = ""
    if shader is not None and shader.format != "xenia-text":
        how = "" if shader.byte_order_certain else " (both orders are consistent: assumed)"
        order = f", {shader.byte_order}-endian{how}"
    lines.append(f"  microcode:   {len(words)} dwords, {len(words) // 3} slots{order}")
    digest = shader.xenia_hash if shader is not None else xenia_hash(words)
    lines.append(f"  xenia hash:  {digest:016X} (Xenia's dump: shader_{digest:016X}.ucode.bin.*)")
    if shader is not None and shader.name_hash is not None:
        agree = "matches" if shader.name_hash == digest else "DOES NOT match the content"
        lines.append(f"  name hash:   {shader.name_hash:016X} ({agree})")
    if shader is not None and shader.target:
        lines.append(f"  compiler:    {shader.creator}, profile {shader.target}")
    if shader is not None and shader.constants:
        lines.append("  constants:")
        lines.extend("    " + line for line in constant_table_lines(shader.constants))
    if shader is not None and shader.literals:
        lines.append("  literals:")
        lines.extend("    " + literal_line(lit) for lit in shader.literals)
    if shader is not None and (shader.vertex_elements or shader.interpolators):
        lines.append("  declarations:")
        declared = semantic_lines(shader.vertex_elements, shader.interpolators)
        lines.extend("    " + line for line in declared)
    text = "\n".join(lines) + "\n"
    write_text(args.output or STDOUT, text)
    return 0


_RUN_EPILOG = """\
input files (--inputs):
  .npy   (N, 4) or (N, k, 4): initial registers R0.. (interpolants; VS index registers)
  .npz   arrays R<n> (N, 4) = registers, 'indices', 'count', an XDK vertex shader's
         attributes named by semantic in capitals (POSITION, TEXCOORD1; uint8 data is
         normalised); any other array is a vertex buffer (raw little-endian memory)
         named by its key
  .json  {"count": N, "indices": [...], "registers": {"R0": [[x,y,z,w], ...]},
          "buffers": {"12": {"dtype": "float32", "data": [...]}},
          "attributes": {"POSITION": [[x,y,z], ...], "TEXCOORD0": [[u,v], ...],
                         "COLOR": {"dtype": "uint8", "data": [[r,g,b,a], ...]}}}
An XDK container's vertex fetches are templates that the Direct3D runtime completes;
"attributes" give each semantic the container declares (POSITION = POSITION0) one row
of 1-4 floats per vertex (or 4 uint8, normalised unless "normalized": false), and a2xx
patches each fetch to read its own buffer: float32 formats, the stride in --address-unit,
components the data lacks read 0 (w: 1); a2xx-formats.md#xdk-vertex-input.  Raw
microcode declares no semantics: bind its buffers with "buffers" and "fetch" constants.
constants (--constants):
  .json  {"float": {"C4": [x,y,z,w]}, "bool": {"b3": true}, "loop": {"i0": [count,
          start, step]}, "fetch": {"12": {"buffer": "12", "offset": 0, "size": 48}}};
         an XDK container's float constants may be named: {"float": {"mvp": [[...] x4]}}
  .npz   'float' (K, 4), 'bool' (<= 256), 'loop' (<= 32 register values)
A vertex fetch CONST(i, s) reads fetch slot 3*i + s; without "fetch" constants a buffer
whose key is a number is bound to that slot.  Vertex shaders start with the vertex
index in R0.x.
"""


# -- parser ----------------------------------------------------------------------------------


def _run_options(parser: argparse.ArgumentParser) -> None:
    """The options ``a2xx run`` and ``a2xx trace`` share: program, inputs, constants."""
    parser.add_argument(
        "file", metavar="FILE", help="program: container, dump, raw microcode, hex or assembly"
    )
    parser.add_argument(
        "--type", type=shader_type_option, help="vs or fs (default: what the file says)"
    )
    parser.add_argument(
        "--inputs",
        metavar="FILE",
        help="registers/interpolants and vertex buffers: .npy, .npz or .json",
    )
    parser.add_argument(
        "--constants", metavar="FILE", help="float/bool/loop/fetch constants: .json or .npz"
    )
    parser.add_argument("--count", type=integer("--count", 0, MAX_INVOCATIONS), metavar="N",
                        help=f"number of vertices (at most {MAX_INVOCATIONS:,} at once)")
    parser.add_argument(
        "--target",
        choices=("adreno", "xenos"),
        help="preset for the points the sources disagree on (default: xenos for XDK "
        "containers, Xenia dumps and big-endian microcode, else adreno)",
    )
    parser.add_argument(
        "--scalar-lane", choices=("z", "x"), help="lane of the second scalar operand (default z)"
    )
    parser.add_argument(
        "--address-unit",
        choices=("bytes", "dwords"),
        help="vertex fetch stride/offset unit (adreno: bytes, xenos: dwords)",
    )
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    parser.add_argument(
        "--max-steps",
        type=integer("--max-steps", 1),
        default=DEFAULT_MAX_STEPS,
        metavar="N",
        help="CF clauses per invocation group before reporting a hang",
    )
    input_format_options(parser, ("auto", "bin", "hex", "asm"))


def _add_disasm_parser(sub: argparse._SubParsersAction) -> None:
    dis = sub.add_parser(
        "disasm",
        help="disassemble a program",
        description="Print a program as Mesa's disasm_a2xx() does, or as Xenia's dump text.",
    )
    dis.add_argument(
        "file",
        metavar="FILE",
        help="program: XDK container, Xenia dump, raw microcode or hex text",
    )
    dis.add_argument(
        "--type",
        type=shader_type_option,
        help="vs or fs: names the exports (default: what the file says, else vs)",
    )
    dis.add_argument("--raw", action="store_true", help="add the raw hex columns (mesa style)")
    dis.add_argument(
        "--no-constants",
        action="store_true",
        help="leave out the comment listing an XDK container's constant table",
    )
    dis.add_argument(
        "--style",
        choices=STYLES,
        default="mesa",
        help="mesa (default), xenia (upstream Xenia's dump text; alias xna), xenia-canary or "
        "xdk (Microsoft's xvs_3_0/xps_3_0 microcode listing)",
    )
    dis.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    input_format_options(dis, ("auto", "bin", "hex"))
    dis.set_defaults(handler=_disasm)


def _add_asm_parser(sub: argparse._SubParsersAction) -> None:
    asm = sub.add_parser(
        "asm",
        help="assemble a program",
        description="Assemble Mesa disassembly / freedreno wiki syntax, Xenia's listing "
        "(its shader_<HASH>.ucode.vert text) or the XDK's microcode listing into "
        "little-endian dwords, or (--container) an XDK listing into an XDK shader "
        "container.",
    )
    asm.add_argument("file", metavar="FILE", help="assembly source")
    asm.add_argument(
        "--syntax",
        choices=("auto", "mesa", "xenia", "xenia-canary", "xdk"),
        default="auto",
        help="Mesa's text (the freedreno wiki's), Xenia's listing or the XDK's xvs_3_0/"
        "xps_3_0 listing (default: the XDK's when a line is its profile, Xenia's when the "
        "text has its /* slot */ markers, else Mesa's)",
    )
    asm.add_argument(
        "--toolchain",
        choices=tuple(TOOLCHAINS),
        default=None,
        help="whose compiler's values fill the bits Mesa's text does not show: adreno "
        "(the Adreno GLES driver's compiler), adreno-kernel (the Adreno 200 kernel "
        "driver's precompiled shaders), xdk (the Xbox 360 XDK's), mesa (Mesa's ir2) or fdre "
        "(freedreno's early fdre-a2xx assembler); "
        "default: the text's '; toolchain: NAME' line (a2xx disasm writes one for an XDK "
        "container), else adreno",
    )
    asm.add_argument("-o", "--output", metavar="OUT", help="output file")
    asm.add_argument(
        "--hex",
        action="store_true",
        help="write hex text, one slot (3 words) per line, instead of binary",
    )
    asm.add_argument(
        "--Werror", action="store_true", dest="werror", help="treat warnings as errors"
    )
    asm.add_argument(
        "--container",
        action="store_true",
        help="write an Xbox 360 XDK shader container (0x102A1100 / 0x102A1101) from the "
        "XDK compiler's listing: its defextern lines make the constant table, def lines "
        "the literals, config and dcl lines the shader header, vfetch ... position lines "
        "the vertex elements, the closing comments the debug block and PDB hint "
        "(a2xx-formats.md#xdk-writing)",
    )
    asm.add_argument(
        "--creator",
        metavar="VERSION",
        help="with --container: the compiler named in the constant table ('' for no "
        "table); default: the listing's '// Generated by' version, else "
        f"{DEFAULT_CREATOR} when it has defextern lines, else no table",
    )
    asm.set_defaults(handler=_asm)


def _running_command(sub: argparse._SubParsersAction, name: str, summary: str,
                     description: str) -> argparse.ArgumentParser:
    """The parser of a command that runs a shader: the run options and their epilog."""
    parser = sub.add_parser(name, help=summary, description=description, epilog=_RUN_EPILOG,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    _run_options(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Adreno A2XX (Xenos) shader tools: disassemble, assemble, run, describe.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} (gpuisa) {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    _add_disasm_parser(sub)
    _add_asm_parser(sub)

    run = _running_command(
        sub, "run", "run a shader on a batch of invocations",
        "Run a vertex shader over N vertices or a pixel shader over N fragments and print the "
        "exports.",
    )
    run.add_argument(
        "--format",
        choices=("table", "json", "npz"),
        default="table",
        help="output format (default table; npz needs -o)",
    )
    run.set_defaults(handler=_run)

    tracer = _running_command(
        sub, "trace", "run a shader and show one invocation instruction by instruction",
        "Run a shader like 'a2xx run' and print, for one invocation, every CF clause and "
        "instruction it reaches (Xenia's text) with the registers, exports, predicate and "
        "address register each one changed, and the names of the constants it reads when the "
        "file is an XDK container.",
    )
    tracer.add_argument(
        "--invocation",
        type=integer("--invocation", 0, MAX_INVOCATIONS - 1),
        default=0,
        metavar="K",
        help="which invocation to follow (default 0)",
    )
    tracer.set_defaults(handler=_trace)

    info = sub.add_parser(
        "info",
        help="describe a shader file",
        description="Say what a shader file is (XDK container, Xenia dump, raw microcode), "
        "its type, byte order, size, the hash Xenia names its dump with, and the "
        "container's constant table.",
    )
    info.add_argument("file", metavar="FILE", help="program file")
    info.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    input_format_options(info, ("auto", "bin", "hex"))
    info.set_defaults(handler=_info)
    vectors.register(sub)
    render.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(PROG, build_parser(), argv, lambda d: f"{PROG}: {render_diagnostic(d)}")

