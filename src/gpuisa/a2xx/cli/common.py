"""What the ``a2xx`` commands share: reading a program file in any of its forms, the
shader type, the emulator preset a file implies, and the options that say how a file
is stored.

Binary programs are recognised by content (:mod:`..containers`): an XDK shader
container, a Xenia dump or raw microcode in either byte order; text is hex words,
Xenia's disassembly text (read through the microcode dump beside it) or, where a
command allows it, assembly source.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import Diagnostic, GpuIsaError, InputError, SourceError
from ..asm import AssemblyResult, assemble_with_warnings
from ..containers import BYTE_ORDERS, ShaderFile, read_shader_file
from ..containers.microcode import dump_name
from ..engine import EmulatorConfig
from ..engine.files import load_constants
from ..xdk_asm import assemble_xdk, looks_like_xdk_listing, shader_type_of
from ..xna_asm import XeniaAssembly, assemble_xenia, looks_like_xenia_listing

PROG = "a2xx"
_SHADER_TYPES = {
    "vs": "vertex",
    "vertex": "vertex",
    "fs": "fragment",
    "ps": "fragment",
    "fragment": "fragment",
}
_HEX_WORD = re.compile(r"(?:0[xX])?([0-9a-fA-F]{1,8})")
_SEPARATORS = re.compile(r"[\s,]+")
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _as_text(data: bytes) -> str | None:
    """``data`` as text, or None if it looks binary (undecodable or control bytes)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if _TEXT_CONTROL.search(text) else text


def parse_hex_words(text: str, path: str) -> list[int]:
    """32-bit words written in hex; problems are reported as ``PATH:LINE:COL``."""
    words: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = re.split(r"[#;]", line, maxsplit=1)[0]
        for match in re.finditer(r"[^\s,]+", code):
            token = match.group()
            parsed = _HEX_WORD.fullmatch(token)
            if parsed is None:
                raise InputError(
                    f"{path}:{number}:{match.start() + 1}: {token!r} is not a 32-bit hex word"
                )
            words.append(int(parsed[1], 16))
    if not words:
        raise InputError(f"{path}: no words in the file")
    return words


def _looks_like_hex(text: str) -> bool:
    code = "\n".join(re.split(r"[#;]", line, maxsplit=1)[0] for line in text.splitlines())
    tokens = [t for t in _SEPARATORS.split(code) if t]
    return bool(tokens) and all(_HEX_WORD.fullmatch(t) for t in tokens)


def read_words(
    path: str, input_format: str = "auto", *, allow_asm: bool = False, byte_order: str = "auto"
) -> list[int]:
    """The dwords of a program file (binary, hex text, or with ``allow_asm`` assembly)."""
    return list(read_shader(path, input_format, allow_asm=allow_asm, byte_order=byte_order)[0])


def read_shader(
    path: str, input_format: str = "auto", *, allow_asm: bool = False, byte_order: str = "auto"
) -> tuple[tuple[int, ...], ShaderFile | None]:
    """The dwords of a program file, and what a binary file says about its shader."""
    data = read_input(path, limit=MAX_SHADER_BYTES)
    text = _as_text(data)
    if input_format == "auto":
        if text is None:
            input_format = "bin"
        elif looks_like_xdk_listing(text):
            words = assemble_xdk_listing(text, path).words
            return words, ShaderFile(words, "xdk-text", "little", True, shader_type_of(text))
        elif looks_like_xenia_listing(text):
            binary = _xenia_microcode(path)
            if binary is not None:
                return read_shader(binary, "bin", byte_order=byte_order)
            words = assemble_xenia_listing(text, path, None).words
            return words, _xenia_text(path, words)
        elif _looks_like_hex(text) or not allow_asm:
            input_format = "hex"
        else:
            input_format = "asm"
    if input_format == "bin":
        shader = read_shader_file(data, path, byte_order=byte_order)
        return shader.words, shader
    if text is None:
        raise InputError(f"{path}: not a text file (use --input-format bin for binaries)")
    if input_format == "hex":
        return tuple(parse_hex_words(text, path)), None
    return assemble_source(text, path).words, None


def _xenia_microcode(path: str) -> str | None:
    """The microcode dump Xenia wrote beside its disassembly text ``path``, if there is
    one: it holds the bits the text does not show."""
    name = dump_name(path)
    if name is not None and not name.is_binary:
        binary = Path(path).with_name(Path(path).name.replace(".ucode.", ".ucode.bin.", 1))
        if binary.is_file():
            print(f"{PROG}: note: {path}: reading the microcode from {binary}", file=sys.stderr)
            return str(binary)
    return None


def _xenia_text(path: str, words: tuple[int, ...]) -> ShaderFile:
    """Xenia's text, assembled: the type and hash come from its name, if it has one."""
    name = dump_name(path)
    return ShaderFile(
        words,
        "xenia-text",
        "little",
        True,
        name.shader_type if name else None,
        name_hash=name.hash if name else None,
    )


def assemble_xenia_listing(text: str, path: str, canary: bool | None) -> XeniaAssembly:
    result = assemble_xenia(text, canary=canary, filename=path)
    for guess in result.guesses:
        print(f"{PROG}: note: {path}: not in Xenia's text, filled in: {guess}", file=sys.stderr)
    return result


def assemble_xdk_listing(text: str, path: str) -> XeniaAssembly:
    result = assemble_xdk(text, filename=path)
    for guess in result.guesses:
        print(f"{PROG}: note: {path}: not in the XDK's text, filled in: {guess}", file=sys.stderr)
    return result


def resolve_type(requested: str | None, shader: ShaderFile | None, default: str | None) -> str:
    """The shader type: as asked, else as the file says, else ``default``."""
    if requested is not None:
        return requested
    if shader is not None and shader.shader_type is not None:
        return shader.shader_type
    if default is None:
        raise InputError("give --type vs or fs: the file does not say which it is")
    return default


def assemble_source(text: str, path: str, toolchain: str | None = None) -> AssemblyResult:
    result = assemble_with_warnings(text, filename=path, toolchain=toolchain)
    for warning in result.warnings:
        _print_diagnostic(warning)
    for guess in result.guesses:
        print(f"{PROG}: note: {path}: not in Mesa's text, filled in: {guess}", file=sys.stderr)
    return result


def _print_diagnostic(diagnostic: Diagnostic) -> None:
    print(f"{PROG}: {render_diagnostic(diagnostic)}", file=sys.stderr)


def render_diagnostic(d: Diagnostic) -> str:
    """``SEVERITY: FILE:LINE:COL: message`` plus the source line and a caret."""
    loc = d.location
    rendered = d.render().split("\n", 1)
    head = f"{d.severity}: {loc.file}:{loc.line}:{loc.column}: {d.message}"
    return head + ("\n" + rendered[1] if len(rendered) > 1 else "")


@contextlib.contextmanager
def about(path: str) -> Iterator[None]:
    """Prefix errors that do not already name a file with ``path``."""
    try:
        yield
    except SourceError:
        raise
    except GpuIsaError as exc:
        message = str(exc)
        if message.startswith(f"{path}:"):
            raise
        raise InputError(f"{path}: {message}") from None


def shader_type_option(value: str) -> str:
    try:
        return _SHADER_TYPES[value.lower()]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"invalid shader type {value!r} (choose vs or fs)"
        ) from None


def target_of(shader: ShaderFile | None) -> str:
    """The emulator preset a file implies: Xbox 360 files (XDK containers, Xenia's dumps,
    big-endian microcode, which no Adreno driver writes) run as Xenos, the rest as Adreno."""
    if shader is not None and (shader.format != "raw" or shader.byte_order == "big"):
        return "xenos"
    return "adreno"


def emulator_config(args: argparse.Namespace, shader: ShaderFile | None) -> EmulatorConfig:
    overrides: dict[str, object] = {}
    if args.scalar_lane is not None:
        overrides["scalar_b_lane"] = {"z": 2, "x": 0}[args.scalar_lane]
    if args.address_unit is not None:
        overrides["address_unit"] = args.address_unit
    return EmulatorConfig.for_target(args.target or target_of(shader), **overrides)


def stage_constants(shader: ShaderFile | None, path: str | None) -> dict[str, object]:
    """The constants a stage runs with (``run_vertex`` / ``run_fragment`` keyword
    arguments): an XDK shader's own literals, with those of the file ``path`` (JSON or
    NPZ, a container's float constants set by name allowed) over them."""
    kwargs: dict[str, object] = {}
    if shader is not None and shader.literals:
        kwargs["float_constants"] = {lit.register: lit.values for lit in shader.literals}
    if path:
        names = {
            c.name: (c.index, c.count)
            for c in (shader.constants if shader is not None else ())
            if c.register_set == "float4"
        }
        with about(path):
            given = load_constants(path, names)
        kwargs |= given | {"float_constants": merge_floats(kwargs, given, path)}
    return kwargs


def merge_floats(
    kwargs: dict[str, object], given: dict[str, object], path: str
) -> object:
    """The container's literals with the float constants of ``--constants`` over them."""
    floats = given.get("float_constants")
    literals = kwargs.get("float_constants")
    if literals is None:
        return floats
    if floats is None:
        return literals
    if not isinstance(floats, dict):
        rows = np.atleast_2d(np.asarray(floats, dtype=np.float32))
        if rows.ndim != 2 or rows.shape[1] != 4:
            raise InputError(f"{path}: float constants must be rows of 4, not {rows.shape}")
        floats = dict(enumerate(rows))
    return {**literals, **floats}  # type: ignore[dict-item]


def input_format_options(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    parser.add_argument(
        "--input-format",
        choices=choices,
        default="auto",
        help="how FILE is stored (default: guess; binaries are recognised by content, "
        "text is hex words" + (" or assembly" if "asm" in choices else "") + ")",
    )
    parser.add_argument(
        "--byte-order",
        choices=("auto", *BYTE_ORDERS),
        default="auto",
        help="byte order of raw microcode (default: the one whose CF program is consistent)",
    )
