"""Camera matrices in the PICA's row layout, for filling 4x4 uniforms.

A shader computes ``dp4 opos.x, m[0], pos`` ... ``dp4 opos.w, m[3], pos``: uniform row
``m[i]`` is row i of the matrix that multiplies column vectors, so these functions return
ordinary row-major matrices ``M`` with ``clip = M @ (x, y, z, 1)``.

The projection is right-handed and maps depth to [-1, 0] as citro3d's ``Mtx_Persp``
(near plane -1, far plane 0).  With ``tilt`` it also turns the picture a quarter turn as
citro3d's ``Mtx_PerspTilt`` does for the sideways 3DS screens (clip x = view y, clip y =
-view x); the renderer's ``tilt`` option turns it back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from ..shbin import Dvle


def look_at(eye: Sequence[float], target: Sequence[float], up: Sequence[float]
            ) -> np.ndarray:
    """The view matrix of a camera at ``eye`` looking at ``target`` (right-handed: the
    camera looks down its -z axis)."""
    eye_v, target_v, up_v = (np.asarray(v, dtype=np.float64) for v in (eye, target, up))
    forward = target_v - eye_v
    if not np.linalg.norm(forward) > 0:
        raise InputError("camera: eye and target are the same point")
    forward /= np.linalg.norm(forward)
    side = np.cross(forward, up_v)
    if not np.linalg.norm(side) > 1e-12:
        raise InputError("camera: the up vector is parallel to the viewing direction")
    side /= np.linalg.norm(side)
    true_up = np.cross(side, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = side, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ eye_v
    return view


def perspective(fov_y: float, aspect: float, near: float, far: float, *,
                tilt: bool = False) -> np.ndarray:
    """Perspective projection: vertical field of view ``fov_y`` (degrees) of the picture
    as seen (width/height = ``aspect``), depth [-1, 0]."""
    if not (0 < fov_y < 180 and aspect > 0 and 0 < near < far):
        raise InputError(f"camera: need 0 < fov < 180 degrees and 0 < near < far, got "
                         f"fov {fov_y}, near {near}, far {far}")
    f = 1.0 / math.tan(math.radians(fov_y) / 2)
    m = np.zeros((4, 4))
    m[0, 0] = f / aspect
    m[1, 1] = f
    # z_clip = near/(near-far) * z + far*near/(near-far), w = -z: z/w is -1 at the near
    # plane (z = -near) and 0 at the far plane (z = -far).
    m[2, 2] = near / (near - far)
    m[2, 3] = far * near / (near - far)
    m[3, 2] = -1.0
    if tilt:
        m = np.array([[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]]) @ m
    return m


@dataclass(frozen=True, slots=True)
class Camera:
    """Where the camera is and what it sees; ``near``/``far`` None: fitted to the mesh."""

    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 1.0, 0.0)
    fov: float = 45.0
    near: float | None = None
    far: float | None = None

    @classmethod
    def fit(cls, positions: np.ndarray, fov: float = 45.0,
            direction: Sequence[float] = (0.6, 0.5, 1.0)) -> Camera:
        """A camera that sees all of ``positions`` ``(V, 3)`` from ``direction``."""
        if not 0 < fov < 180:
            raise InputError(f"camera: need 0 < fov < 180 degrees, got fov {fov}")
        low, high = positions.min(axis=0), positions.max(axis=0)
        centre = (low + high) / 2
        radius = max(float(np.linalg.norm(high - low)) / 2, 1e-6)
        way = np.asarray(direction, dtype=np.float64)
        way /= np.linalg.norm(way)
        distance = radius / math.sin(math.radians(fov) / 2) * 1.05
        return cls(tuple(centre + way * distance), tuple(centre), fov=fov)

    def matrices(self, aspect: float, positions: np.ndarray | None = None, *,
                 tilt: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(projection, model-view)."""
        view = look_at(self.eye, self.target, self.up)
        near, far = self.near, self.far
        if near is None or far is None:
            depth = 1.0
            if positions is not None and len(positions):
                eye_space = positions @ view[:3, :3].T + view[:3, 3]
                depth = max(float(-eye_space[:, 2].min()), 1e-3)
            near = near if near is not None else depth / 1000
            far = far if far is not None else depth * 1.01
        return perspective(self.fov, aspect, near, far, tilt=tilt), view


#: Uniform names the camera fills when the user names none (compared case-insensitively).
PROJECTION_NAMES = ("projection", "proj", "uloc_projection")
MODELVIEW_NAMES = ("modelview", "model_view", "mv", "uloc_modelview")
MVP_NAMES = ("mvp", "modelviewprojection", "transform")


def camera_uniforms(dvle: Dvle | None, projection: np.ndarray, view: np.ndarray, *,
                    projection_name: str | None = None, modelview_name: str | None = None
                    ) -> dict[str, np.ndarray]:
    """The uniforms the camera fills: the projection and model-view uniforms named (or
    found by their usual names); a shader with only one matrix gets their product."""
    declared = {u.name.lower(): u.name for u in (dvle.uniforms if dvle else ())
                if u.bank == "c" and u.last - u.first >= 3}

    def find(given: str | None, usual: tuple[str, ...]) -> str | None:
        if given is not None:
            if dvle is not None and given.lower() not in declared:
                raise InputError(f"camera: the shader has no 4-row float uniform {given!r} "
                                 f"(it has: {', '.join(declared.values()) or 'none'})")
            return declared.get(given.lower(), given)
        return next((declared[n] for n in usual if n in declared), None)

    proj = find(projection_name, PROJECTION_NAMES)
    modelview = find(modelview_name, MODELVIEW_NAMES)
    if proj is not None and modelview is not None:
        return {proj: projection, modelview: view}
    single = proj or modelview or find(None, MVP_NAMES)
    if single is None:
        raise InputError("camera: the shader has no projection/modelview uniform; name "
                         "one with --projection NAME (and --modelview NAME)")
    return {single: projection @ view}
