"""Turning a scene into pixels: clipping, rasterization and the shading modes.

Modes: ``color`` (the ``color`` output, perspective-correct, clamped to 0..1), ``flat``
(one colour per triangle: the mean of its corners' colours times how squarely it faces
the viewer, so its facets show), ``wireframe``
(the edges of the visible triangles in their colour), ``depth`` (near is white).  A
texture, when given, is sampled (nearest texel, repeating; t = 0 at the bottom as in
OpenGL) at the ``texcoord0`` output and multiplies the colour.  Covered pixels are
opaque; the rest keep the background.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import GpuIsaWarning, InputError
from ...render.images import pillow, png_bytes
from .raster import Raster, clip_triangles, rasterize, to_screen
from .scene import Scene

MODES = ("color", "flat", "wireframe", "depth")
#: The default background: dark grey, opaque.
BACKGROUND = (32, 32, 32, 255)
#: Half the width of wireframe lines, in pixels.
LINE_HALF_WIDTH = 0.75


class EmptyPictureWarning(GpuIsaWarning):
    """Every triangle of the scene lies outside the PICA clip volume."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A drawn picture: ``image`` ``(H, W, 4)`` uint8, the scene and raster it came
    from and the screen positions ``(M, 3)`` (x, y in pixels, z/w) of the scene's
    vertices."""

    image: np.ndarray
    scene: Scene
    raster: Raster
    screen: np.ndarray


def draw(scene: Scene, size: tuple[int, int], *, mode: str = "color", tilt: bool = False,
         texture: np.ndarray | None = None,
         background: tuple[int, int, int, int] = BACKGROUND) -> Frame:
    if mode not in MODES:
        raise InputError(f"unknown shading mode {mode!r}; use one of {', '.join(MODES)}")
    width, height = size
    names = list(scene.attributes)
    widths = [scene.attributes[n].shape[1] for n in names]
    packed = (np.concatenate([scene.attributes[n] for n in names], axis=1) if names
              else np.zeros((len(scene.positions), 0)))
    corners, attributes, source = clip_triangles(scene.positions[scene.triangles],
                                                 packed[scene.triangles],
                                                 np.arange(len(scene.triangles)))
    if len(scene.triangles) and not len(corners):
        _warn_all_clipped(scene)
    raster = rasterize(corners, size, tilt=tilt)
    values = raster.interpolate(attributes)
    split = (dict(zip(names, np.split(values, np.cumsum(widths)[:-1], axis=-1), strict=True))
             if names else {})
    drawn = raster.triangle >= 0
    if mode == "flat":
        color = _flat(scene)[source][np.maximum(raster.triangle, 0)]
    elif "color" in split:
        color = np.clip(split["color"], 0, 1)[..., :3]
    else:
        color = np.ones((height, width, 3))
    if texture is not None:
        if "texcoord0" not in split:
            raise InputError("a texture needs the shader's texcoord0 output")
        color = color * sample(texture, split["texcoord0"])
    if mode == "depth":
        color = np.repeat(_depth_shade(raster.depth, drawn)[..., None], 3, axis=-1)
    elif mode == "wireframe":
        drawn = drawn & (raster.edge_distance < LINE_HALF_WIDTH)
    image = np.empty((height, width, 4), dtype=np.uint8)
    image[...] = np.asarray(background, dtype=np.uint8)
    image[drawn, :3] = np.rint(color[drawn] * 255).astype(np.uint8)
    image[drawn, 3] = 255
    return Frame(image, scene, raster, to_screen(scene.positions, size, tilt))


def _flat(scene: Scene) -> np.ndarray:
    """Per triangle ``(T, 3)``: the mean colour of its corners (white without a colour
    output) times 0.25 + 0.75 |cos| of the angle between its normal and the viewing
    axis.  The normal is taken in clip space (x, y, depth), depth being w where w varies
    over the scene (a perspective projection: w is the distance along the viewing axis)
    and z where it does not (an orthographic one): either is an affine image of the
    scene as the camera sees it."""
    corners = scene.positions[scene.triangles]
    w = scene.positions[:, 3]
    depth = 3 if len(w) and np.ptp(w) > 0 else 2
    space = corners[..., [0, 1, depth]]
    normal = np.cross(space[:, 1] - space[:, 0], space[:, 2] - space[:, 0])
    length = np.linalg.norm(normal, axis=1)
    cosine = np.abs(normal[:, 2]) / np.where(length > 0, length, 1)
    colours = scene.attributes.get("color")
    base = (np.clip(colours[scene.triangles][..., :3], 0, 1).mean(axis=1)
            if colours is not None else np.ones((len(scene.triangles), 3)))
    return base * (0.25 + 0.75 * cosine)[:, None]


def _warn_all_clipped(scene: Scene) -> None:
    """Say why the picture is empty: every vertex outside -w <= z <= 0, w > 0."""
    used = scene.positions[np.unique(scene.triangles)]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = used[:, 2] / used[:, 3]
    finite = ratio[np.isfinite(ratio)]
    spread = (f"; z/w of the vertices lies in [{finite.min():.4g}, {finite.max():.4g}]"
              if len(finite) else "")
    warnings.warn(
        f"all {len(scene.triangles)} triangles lie outside the PICA clip volume "
        f"(-w <= z <= 0, w > 0): the picture is empty{spread}; a projection for depth "
        f"in [-1, 0] (citro3d's, or --camera) places them", EmptyPictureWarning,
        stacklevel=3)


def _depth_shade(depth: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """Nearest drawn pixel white, farthest dark grey."""
    if not drawn.any():
        return np.zeros(depth.shape)
    near, far = depth[drawn].min(), depth[drawn].max()
    span = far - near if far > near else 1.0
    return 1.0 - 0.8 * (depth - near) / span


def sample(texture: np.ndarray, texcoord: np.ndarray) -> np.ndarray:
    """Nearest-texel RGB of ``texture`` ``(h, w, 3 or 4)`` uint8 at ``(..., 2)`` (u, v),
    repeating outside 0..1; v = 0 is the bottom row."""
    th, tw = texture.shape[:2]
    u = np.nan_to_num(texcoord[..., 0]) % 1.0
    v = np.nan_to_num(texcoord[..., 1]) % 1.0
    x = np.minimum((u * tw).astype(np.int64), tw - 1)
    y = np.minimum(((1.0 - v) * th).astype(np.int64), th - 1)
    return texture[y, x, :3].astype(np.float64) / 255.0


#: Still-picture formats by file suffix (no suffix, or standard output: PNG).
PICTURE_FORMATS = {".png": "PNG", ".apng": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG",
                   ".gif": "GIF", "": "PNG"}


def picture_format(path: str) -> str:
    """"PNG" or "JPEG" as ``path``'s suffix says; another suffix is refused rather than
    written as something else."""
    suffix = os.path.splitext(path)[1].lower() if path != "-" else ""
    kind = PICTURE_FORMATS.get(suffix)
    if kind is None:
        raise InputError(f"{path}: pica render writes pictures as .png, .jpg/.jpeg or "
                         f".gif (animations with --frames: .gif, .png, .apng), not {suffix}")
    return kind


def picture_bytes(image: np.ndarray, path: str) -> bytes:
    """``image`` encoded as ``path``'s suffix says (:func:`picture_format`); JPEG and
    GIF without the alpha channel, which they cannot hold."""
    kind = picture_format(path)
    if kind == "PNG":
        return png_bytes(image)
    buffer = io.BytesIO()
    pillow().fromarray(image, "RGBA").convert("RGB").save(buffer, format=kind,
                                                          **({"quality": 95} if kind ==
                                                             "JPEG" else {}))
    return buffer.getvalue()
