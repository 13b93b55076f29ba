"""``a2xx render``: draw what a vertex and pixel shader pair does to a mesh.

``a2xx render VS PS --mesh MESH -o out.png`` runs the vertex shader on every mesh vertex
(its vertex fetches reading the mesh), rasterizes the triangles by the target's
conventions and runs the pixel shader on every covered pixel; ``--compare targets|lanes``
draws twice and writes both pictures and a heat map of their difference.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from ...cli_support import integer, key_values, picture_size, rgba_colour
from ...errors import InputError
from ...fileio import write_output
from ...render.images import load_texture, png_bytes
from ...render.mesh import as_mesh
from .. import isa
from ..containers import ShaderFile
from ..engine import EmulatorConfig, Texture
from ..engine.api import DEFAULT_MAX_STEPS
from ..engine.texture import ADDRESS_MODES, FILTERS
from ..render import BACKGROUND, COMPARISONS, MAX_SIDE, compare, render
from .common import (
    PROG,
    about,
    emulator_config,
    input_format_options,
    read_shader,
    stage_constants,
    target_of,
)

_HELP = "draw what a vertex and pixel shader pair does to a mesh"
_DESCRIPTION = ("Run the vertex shader on a mesh (OBJ, PLY, glTF/GLB, STL, OFF), rasterize "
                "its triangles as the target does and run the pixel shader on every covered "
                "pixel; write its colour export as a PNG (needs 'gpuisa[render]').")
_STAGE_NAMES = {"vertex": "vertex shader", "fragment": "pixel shader"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("render", help=_HELP, description=_DESCRIPTION)
    parser.add_argument("vertex", metavar="VS", help="the vertex shader (any form 'a2xx run' "
                        "reads: container, dump, microcode, hex, Xenia's text or assembly); "
                        "an XDK container's vertex fetches read the mesh by the semantics "
                        "it declares (POSITION: position, NORMAL: normal, TEXCOORDn: "
                        "texcoord, COLORn: color)")
    parser.add_argument("pixel", metavar="PS", help="the pixel shader; with two XDK "
                        "containers, each register gets the export that carries its "
                        "semantic (TEXCOORD0, COLOR0, ...), otherwise export N reaches RN")
    parser.add_argument("--mesh", required=True, metavar="MESH", help="the mesh file")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="the picture (.png); with --compare, OUT's stem names three")
    parser.add_argument("--size", type=picture_size("--size", MAX_SIDE), default=(640, 480),
                        metavar="WxH", help="picture size (default: 640x480)")
    parser.add_argument("--vs-constants", metavar="FILE",
                        help="the vertex shader's float/bool/loop constants (.json or .npz, "
                        "as for 'a2xx run --constants')")
    parser.add_argument("--ps-constants", metavar="FILE",
                        help="the pixel shader's constants")
    parser.add_argument("--texture", action="append", default=[], metavar="N=IMAGE",
                        help="bind an image to texture fetch constant N (0-31); repeatable")
    parser.add_argument("--filter", choices=FILTERS, default="linear",
                        help="texture filter where a fetch defers to its fetch constant "
                        "(default: linear)")
    parser.add_argument("--address", choices=ADDRESS_MODES, default="wrap",
                        help="texture coordinates outside 0..1 (default: wrap)")
    parser.add_argument("--attr", action="append", default=[], metavar="RN=ATTRIBUTE",
                        help="feed mesh attribute position|color|normal|texcoord to the "
                        "vertex fetch writing register RN or, for an XDK container, to a "
                        "semantic it reads (--attr TEXCOORD1=texcoord); repeatable")
    parser.add_argument("--target", choices=("adreno", "xenos"),
                        help="conventions and emulator preset (default: xenos for XDK "
                        "containers, Xenia dumps and big-endian microcode, else adreno)")
    parser.add_argument("--scalar-lane", choices=("z", "x"),
                        help="lane of the second scalar operand (default z)")
    parser.add_argument("--address-unit", choices=("bytes", "dwords"),
                        help="vertex fetch stride/offset unit (adreno: bytes, xenos: dwords)")
    parser.add_argument("--compare", choices=COMPARISONS,
                        help="draw with both targets, or both scalar lanes: write OUT's "
                        ".<first>, .<second> and .diff pictures and print how they differ")
    parser.add_argument("--background", type=rgba_colour, default=BACKGROUND,
                        metavar="RRGGBB[AA]", help="background colour (default: 202020)")
    parser.add_argument("--max-steps", type=integer("--max-steps", 1),
                        default=DEFAULT_MAX_STEPS, metavar="N",
                        help="CF clauses per invocation group before reporting a hang")
    input_format_options(parser, ("auto", "bin", "hex", "asm"))
    parser.set_defaults(handler=_render)


class _Progress:
    """``a2xx render: <stage> NN%`` on stderr when it is a terminal; silent otherwise."""

    def __init__(self) -> None:
        self.active = sys.stderr.isatty()
        self.shown = ""

    def __call__(self, stage: str, fraction: float) -> None:
        line = f"{PROG} render: {stage} {fraction:4.0%}"
        if self.active and line != self.shown:
            self.shown = line
            print(f"\r{line}\x1b[K", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        """End the progress line (once) before anything else is printed."""
        if self.active and self.shown:
            print(file=sys.stderr)
        self.shown = ""


def _shader(path: str, expected: str, args: argparse.Namespace):
    """The words of a stage's file and what the file says about itself."""
    with about(path):
        words, shader = read_shader(path, args.input_format, allow_asm=True,
                                    byte_order=args.byte_order)
    said = shader.shader_type if shader is not None else None
    if said is not None and said != expected:
        raise InputError(f"{path}: the file holds a {_STAGE_NAMES[said]}, given as the "
                         f"{_STAGE_NAMES[expected]} (the order is VS PS)")
    return words, shader


def _textures(pairs: list[str], args: argparse.Namespace) -> dict[int, Texture]:
    out: dict[int, Texture] = {}
    for pair in pairs:
        key, eq, path = pair.partition("=")
        if not eq or not key.strip().isdigit() or not path:
            raise InputError(f"--texture {pair!r}: expected N=IMAGE (N a texture fetch "
                             f"constant, 0-{isa.TEXTURE_FETCH_CONSTANTS - 1})")
        index = int(key)
        if index >= isa.TEXTURE_FETCH_CONSTANTS:
            raise InputError(f"--texture {pair!r}: texture fetch constants are 0-"
                             f"{isa.TEXTURE_FETCH_CONSTANTS - 1}")
        texels = load_texture(path).astype(np.float32) / np.float32(255)
        out[index] = Texture(texels, filter=args.filter, address=args.address)
    return out


def _constants(shader: ShaderFile | None, path: str | None, option: str) -> dict:
    constants = stage_constants(shader, path)
    if constants.pop("fetch_constants", None) is not None:
        raise InputError(f"{option} {path}: a2xx render binds the vertex fetch constants "
                         f"to the mesh itself; leave out \"fetch\"")
    return constants


def _interpolators(shader: ShaderFile | None) -> tuple | None:
    """An XDK container's interpolators, by which the pair is linked; None otherwise,
    and for a container whose declarations the reader could not decode (it then has
    no register values either): such a pair keeps the register-number rule rather than
    being linked as if the shader declared nothing."""
    if shader is None or shader.format != "xdk" or shader.config is None:
        return None
    return shader.interpolators


def _output(path: str) -> None:
    suffix = os.path.splitext(path)[1].lower() if path != "-" else ".png"
    if suffix not in (".png", ""):
        raise InputError(f"--output {path}: a2xx render writes PNG pictures (.png), not "
                         f"{suffix}")


def _render(args: argparse.Namespace) -> int:
    _output(args.output)
    emulator_config(args, None)  # a bad option is reported before anything is read
    vertex, vertex_file = _shader(args.vertex, "vertex", args)
    pixel, pixel_file = _shader(args.pixel, "fragment", args)
    config = emulator_config(args, vertex_file)
    target = args.target or target_of(vertex_file)
    options = dict(
        size=args.size, background=args.background, max_steps=args.max_steps,
        vertex_constants=_constants(vertex_file, args.vs_constants, "--vs-constants"),
        pixel_constants=_constants(pixel_file, args.ps_constants, "--ps-constants"),
        textures=_textures(args.texture, args),
        attributes=key_values(args.attr, "--attr", "RN=ATTRIBUTE (e.g. R2=normal)"),
        names=(args.vertex, args.pixel),
        elements=vertex_file.vertex_elements if vertex_file is not None else (),
        vs_interpolators=_interpolators(vertex_file),
        ps_interpolators=_interpolators(pixel_file))
    mesh = as_mesh(args.mesh)
    progress = _Progress()
    try:
        if args.compare:
            _compare(args, (vertex, pixel, mesh), target, config, options, progress)
            return 0
        frame = render(vertex, pixel, mesh, target=target, config=config,
                       progress=progress, **options)
    finally:
        progress.finish()
    write_output(args.output, png_bytes(frame.image, optimize=False))
    if frame.unsupported_fetches:
        print(f"{PROG}: note: texture fetches in slots "
              f"{', '.join(map(str, frame.unsupported_fetches))} read zeros (no texture "
              f"bound: --texture N=IMAGE)", file=sys.stderr)
    return 0


def _compare(args: argparse.Namespace, draw: tuple, target: str, config: EmulatorConfig,
             options: dict, progress: _Progress) -> None:
    """Draw twice as ``--compare`` says; write both pictures and the heat map."""
    overrides = {"address_unit": args.address_unit} if args.address_unit else {}
    if args.scalar_lane and args.compare == "targets":
        overrides["scalar_b_lane"] = config.scalar_b_lane
    result = compare(*draw, between=args.compare, target=target, overrides=overrides,
                     progress=progress, **options)
    stem, suffix = os.path.splitext(args.output)
    names = [name.replace(" ", "-") for name in result.names]
    pictures = [(f"{stem}.{names[0]}{suffix or '.png'}", result.first.image),
                (f"{stem}.{names[1]}{suffix or '.png'}", result.second.image),
                (f"{stem}.diff{suffix or '.png'}", result.difference)]
    encoded = [(path, png_bytes(image, optimize=False)) for path, image in pictures]
    progress.finish()
    for path, data in encoded:
        write_output(path, data)
    print(result.summary())
