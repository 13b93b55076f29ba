"""``pica render``: draw what a shader does to a mesh.

``pica render SHADER... --mesh MESH -o out.png`` runs the vertex shader (and a geometry
shader with ``--gsh N``) on the mesh and rasterizes the triangles.  ``--compare`` writes
the float24 and float32 pictures and their difference; ``--frames N --uniform-step
NAME=dx,dy,dz,dw`` an animation.
"""

from __future__ import annotations

import argparse
import math
import os

from ...cli_support import integer, key_values, number, picture_size, rgba_colour
from ...errors import InputError
from ...fileio import write_output
from ..render import MAX_SIDE, SCREENS, Camera, Mesh, as_mesh, compare, render_frame
from ..render.animate import (
    MAX_FRAME_MS,
    MAX_FRAMES,
    animation_bytes,
    frame_paths,
    iterate_frames,
    numbered,
    stepped_uniforms,
)
from ..render.shade import BACKGROUND, MODES, picture_bytes, picture_format
from .common import source_text
from .run import (
    add_pipeline_options,
    add_precision_options,
    check_entries,
    check_pipeline_options,
    load_shader,
    load_uniforms,
    rounding,
)

_ATTR_FORM = "INPUT=ATTRIBUTE (e.g. v1=normal)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "render", help="draw what a shader does to a mesh",
        description="Run the shader on a mesh (OBJ, PLY, glTF/GLB, STL) and draw the "
                    "triangles it produces into a PNG (needs 'gpuisa[render]').")
    parser.add_argument("shader", nargs="+", metavar="SHADER",
                        help=".shbin file, or assembly sources (one DVLE each)")
    parser.add_argument("--mesh", required=True, metavar="MESH", help="the mesh file")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="the picture (.png or .jpg); with --frames .gif, .png (APNG) or a "
                        "numbered pattern such as frame_%%03d.png")
    parser.add_argument("--uniforms", metavar="FILE", help="uniform values (.json)")
    parser.add_argument("--dvle", type=integer("--dvle", 0), metavar="N",
                        help="the vertex shader DVLE (default: the first)")
    add_pipeline_options(parser)
    parser.add_argument("--attr", action="append", default=[], metavar="INPUT=ATTRIBUTE",
                        help="feed mesh attribute position|normal|color|texcoord to an "
                        "input (vN or its .in name); repeatable")
    parser.add_argument("--mode", choices=MODES, default="color",
                        help="shading (default: color, the shader's colour output)")
    parser.add_argument("--texture", metavar="IMAGE",
                        help="multiply the colour by this image sampled at texcoord0")
    parser.add_argument("--camera", metavar="auto|EYE,TARGET[,UP]",
                        help="fill the projection/model-view uniforms: 'auto' frames the "
                        "mesh; or nine numbers ex,ey,ez,tx,ty,tz,ux,uy,uz (up default "
                        "0,1,0)")
    parser.add_argument("--fov", type=number("--fov", above=0, below=180), default=45.0,
                        metavar="DEG",
                        help="vertical field of view of --camera (default: 45)")
    parser.add_argument("--projection", metavar="NAME",
                        help="the uniform --camera puts the projection in (default: a "
                        "uniform named projection; alone, it gets projection x view)")
    parser.add_argument("--modelview", metavar="NAME",
                        help="the uniform --camera puts the view matrix in")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--size", type=picture_size("--size", MAX_SIDE), metavar="WxH",
                      help="picture size (default: 400x240, the top screen)")
    size.add_argument("--screen", choices=tuple(SCREENS),
                      help="picture size of a 3DS screen (top 400x240, bottom 320x240)")
    parser.add_argument("--tilt", action="store_true",
                        help="undo the quarter turn of 3DS projection matrices "
                        "(citro3d's *Tilt helpers) so the picture looks as on the console")
    add_precision_options(parser)
    parser.add_argument("--engine", default="auto", help="execution engine (default: auto)")
    parser.add_argument("--background", type=rgba_colour, default=BACKGROUND,
                        metavar="RRGGBB[AA]", help="background colour (default: 202020)")
    parser.add_argument("--max-steps", type=integer("--max-steps", 1), default=100_000,
                        metavar="N",
                        help="instructions per vertex before reporting a hang")
    parser.add_argument("--compare", action="store_true",
                        help="render in f24 and f32: write OUT's .f24, .f32 and .diff "
                        "pictures and print how many vertices differ")
    parser.add_argument("--frames", type=integer("--frames", 1, MAX_FRAMES), metavar="N",
                        help="write an animation of N frames")
    parser.add_argument("--uniform-step", action="append", default=[],
                        metavar="NAME=DX[,DY,DZ,DW]",
                        help="with --frames: add this to uniform NAME every frame")
    parser.add_argument("--frame-ms", type=integer("--frame-ms", 1, MAX_FRAME_MS), default=50,
                        metavar="MS",
                        help="with --frames: milliseconds per frame (default: 50)")
    parser.set_defaults(handler=_render)


def _numbers(text: str, what: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = [math.nan]
    if not all(math.isfinite(v) for v in values):
        raise InputError(f"{what}: expected comma-separated finite numbers, got {text!r}")
    return values


def _camera(args: argparse.Namespace, mesh: Mesh) -> Camera | None:
    if args.camera is None:
        return None
    if args.camera == "auto":
        return Camera.fit(mesh.positions, fov=args.fov)
    values = _numbers(args.camera, "--camera")
    if len(values) not in (6, 9):
        raise InputError(f"--camera: expected 'auto' or 6 or 9 numbers (eye, target, up), "
                         f"got {len(values)}")
    up = tuple(values[6:9]) if len(values) == 9 else (0.0, 1.0, 0.0)
    return Camera(tuple(values[0:3]), tuple(values[3:6]), up, fov=args.fov)


def _steps(pairs: list[str]) -> dict[str, list[float]]:
    out = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name:
            raise InputError(f"--uniform-step {pair!r}: expected NAME=DX[,DY,DZ,DW]")
        numbers = _numbers(value, f"--uniform-step {name}")
        if len(numbers) == 1:
            numbers *= 4  # a scalar steps every component (time in .x, .y, ...)
        if len(numbers) != 4:
            raise InputError(f"--uniform-step {name}: expected 1 or 4 numbers")
        out[name] = numbers
    return out


def _shader(paths: list[str]):
    if len(paths) == 1:
        return load_shader(paths[0], "pica render")
    from ...datafiles import MAX_SHADER_BYTES, read_input
    from ..asm import assemble

    return assemble([(p, source_text(p, read_input(p, limit=MAX_SHADER_BYTES),
                                     "pica render")) for p in paths])


def _render(args: argparse.Namespace) -> int:
    if (args.frames is None) != (not args.uniform_step) and args.uniform_step:
        raise InputError("--uniform-step needs --frames N")
    if args.compare and args.frames is not None:
        raise InputError("--compare and --frames cannot be combined")
    check_pipeline_options(args)
    if args.primitive_sizes is not None:
        raise InputError("--primitive-sizes: pica render feeds a variable-mode geometry "
                         "shader the mesh's triangles, three vertices each")
    shader = _shader(args.shader)
    check_entries(args, shader)
    mesh = as_mesh(args.mesh)
    uniforms = load_uniforms(args.uniforms) if args.uniforms else None
    gs_uniforms = load_uniforms(args.gs_uniforms) if args.gs_uniforms else None
    size = args.size or SCREENS[args.screen or "top"]
    options = dict(size=size, dvle=args.dvle, gsh=args.gsh, stride=args.stride,
                   attributes=key_values(args.attr, "--attr", _ATTR_FORM), mode=args.mode,
                   texture=args.texture,
                   camera=_camera(args, mesh), projection=args.projection,
                   modelview=args.modelview, tilt=args.tilt, engine=args.engine,
                   background=args.background, max_steps=args.max_steps,
                   rounding=rounding(args))
    if args.frames is None or numbered(args.output):
        picture_format(args.output)  # before the rendering, not after it
    if args.compare:
        result = compare(shader, mesh, uniforms=uniforms, gs_uniforms=gs_uniforms,
                         **options)
        stem, suffix = os.path.splitext(args.output)
        pictures = [(f"{stem}.f24{suffix or '.png'}", result.first.image),
                    (f"{stem}.f32{suffix or '.png'}", result.second.image),
                    (f"{stem}.diff{suffix or '.png'}", result.difference)]
        encoded = [(path, picture_bytes(image, path)) for path, image in pictures]
        for path, data in encoded:
            write_output(path, data)
        print(result.summary())
        return 0
    if args.frames is not None:
        steps = _steps(args.uniform_step)

        def make(k: int):
            vertex, geometry = stepped_uniforms(shader, uniforms, gs_uniforms, steps, k,
                                                dvle=args.dvle, gsh=args.gsh)
            return render_frame(shader, mesh, uniforms=vertex, gs_uniforms=geometry,
                                precision=args.precision, **options).image

        frames = list(iterate_frames(args.frames, make))
        if numbered(args.output):
            paths = frame_paths(args.output, len(frames))
            encoded = [picture_bytes(f, p) for f, p in zip(frames, paths, strict=True)]
            for path, data in zip(paths, encoded, strict=True):
                write_output(path, data)
        else:
            write_output(args.output, animation_bytes(frames, args.output,
                                                      frame_ms=args.frame_ms))
        return 0
    frame = render_frame(shader, mesh, uniforms=uniforms, gs_uniforms=gs_uniforms,
                         precision=args.precision, **options)
    write_output(args.output, picture_bytes(frame.image, args.output))
    return 0
