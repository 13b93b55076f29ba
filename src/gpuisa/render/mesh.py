"""Meshes for the rasterizers of both ISAs: reading OBJ, PLY, glTF/GLB, STL, OFF (through
trimesh) or arrays into a :class:`Mesh` of per-vertex float arrays and index triples.

Each ISA's renderer decides how the attributes reach its shader (PICA200: input
registers; A2XX: vertex buffers behind vertex fetch constants).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..datafiles import STDIN, read_input
from ..errors import InputError

#: Attributes a mesh provides, in the order a shader's inputs take them by default
#: (PICA200: v0-v3; A2XX: the vertex fetches in program order).
ATTRIBUTES = ("position", "color", "normal", "texcoord")
#: Mesh file types trimesh reads that this module accepts.
MESH_TYPES = ("obj", "ply", "stl", "gltf", "glb", "off")
#: Mesh files over this size are refused before reading.
MAX_MESH_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class Mesh:
    """``positions`` ``(V, 3)``, ``faces`` ``(F, 3)`` int; ``normals`` ``(V, 3)``,
    ``colors`` ``(V, 4)`` in 0..1 and ``texcoords`` ``(V, 2)`` or None."""

    positions: np.ndarray
    faces: np.ndarray
    normals: np.ndarray | None = None
    colors: np.ndarray | None = None
    texcoords: np.ndarray | None = None

    def attribute(self, name: str) -> np.ndarray:
        """One attribute as ``(V, 4)`` float32 shader input rows."""
        count = len(self.positions)
        out = np.zeros((count, 4), dtype=np.float32)
        if name == "position":
            out[:, :3], out[:, 3] = self.positions, 1.0
        elif name == "normal":
            out[:, :3] = self.normals if self.normals is not None else _normals(self)
        elif name == "color":
            out[:] = self.colors if self.colors is not None else 1.0
        elif name == "texcoord":
            if self.texcoords is None:
                raise InputError("the mesh has no texture coordinates")
            out[:, :2], out[:, 3] = self.texcoords, 1.0
        else:
            raise InputError(f"unknown mesh attribute {name!r}; use one of "
                             f"{', '.join(ATTRIBUTES)}")
        return out


def mesh_from_arrays(arrays: Mapping[str, object]) -> Mesh:
    """A mesh from ``{"position": (V, 3), "faces"?: (F, 3), "normal"?, "color"?,
    "texcoord"?}`` (colour in 0..1, 3 or 4 channels; no faces: a point cloud)."""
    unknown = set(arrays) - {"position", "faces", *ATTRIBUTES}
    if unknown:
        raise InputError(f"unknown mesh array {sorted(unknown)[0]!r}; expected position, "
                         f"faces, normal, color, texcoord")
    if "position" not in arrays:
        raise InputError("a mesh needs a 'position' (V, 3) array (and 'faces' (F, 3), "
                         "none for a point cloud)")
    positions = _array(arrays["position"], "position", (3,))
    count = len(positions)
    faces = np.asarray(arrays.get("faces", np.zeros((0, 3), dtype=np.int64)))
    if faces.size == 0 and faces.dtype.kind == "f":  # [] reads as a float array
        faces = faces.astype(np.int64).reshape(0, 3)
    if faces.ndim != 2 or faces.shape[1] != 3 or faces.dtype.kind not in "iu":
        raise InputError(f"mesh faces must be (F, 3) integers, got {faces.dtype} "
                         f"{faces.shape}")
    if faces.size and (faces.min() < 0 or faces.max() >= count):
        raise InputError(f"mesh faces index vertices 0..{count - 1}, found "
                         f"{int(faces.min() if faces.min() < 0 else faces.max())}")
    colors = arrays.get("color")
    if colors is not None:
        colors = _array(colors, "color", (3, 4), count)
        if colors.shape[1] == 3:
            colors = np.concatenate([colors, np.ones((count, 1))], axis=1)
    normals = arrays.get("normal")
    texcoords = arrays.get("texcoord")
    return Mesh(positions, faces.astype(np.int64),
                None if normals is None else _array(normals, "normal", (3,), count),
                colors,
                None if texcoords is None else _array(texcoords, "texcoord", (2,), count))


def _array(value: object, name: str, widths: tuple[int, ...],
           count: int | None = None) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"mesh {name} is not an array of numbers") from None
    if array.ndim != 2 or array.shape[1] not in widths or (
            count is not None and len(array) != count):
        rows = "V" if count is None else str(count)
        raise InputError(f"mesh {name} must be ({rows}, {' or '.join(map(str, widths))}), "
                         f"got {array.shape}")
    return array


def load_mesh(path: str | os.PathLike[str]) -> Mesh:
    """Read a mesh file (type from its suffix) with trimesh; every vertex is kept as
    stored (no merging), so texture seams survive.  Normals are the file's, or None
    (computed from the faces by :meth:`Mesh.attribute` when a shader asks).  A file of
    vertices without faces (a PLY point cloud) is a mesh without faces, for geometry
    shaders that make their own."""
    name = os.fspath(path)
    if name == STDIN:
        raise InputError("--mesh: a mesh is read from a file, whose suffix says its type "
                         "(not from standard input)")
    kind = Path(name).suffix.lower().lstrip(".")
    if kind not in MESH_TYPES:
        raise InputError(f"{name}: unknown mesh file type {kind or '(none)'!r}; use "
                         f"{', '.join('.' + t for t in MESH_TYPES)}")
    data = read_input(name, limit=MAX_MESH_BYTES)
    trimesh = _trimesh()
    with _quiet_trimesh():
        try:
            resolver = trimesh.resolvers.FilePathResolver(name) if kind == "gltf" else None
            scene = trimesh.load_scene(io.BytesIO(data), file_type=kind, process=False,
                                       resolver=resolver)
            loaded = scene.to_mesh()
        except Exception as error:
            raise InputError(f"{name}: cannot read the {kind.upper()} mesh: "
                             f"{error or type(error).__name__}") from None
        if not isinstance(loaded, trimesh.Trimesh) or len(loaded.faces) == 0:
            return _point_cloud(scene, trimesh, name)
        return _from_trimesh(loaded, _stored_normals(scene, trimesh, len(loaded.vertices)),
                             name)


def _point_cloud(scene: object, trimesh: object, name: str) -> Mesh:
    """The vertices of a file without faces, placed by the scene's transforms."""
    parts = []
    for node in scene.graph.nodes_geometry:
        transform, geometry_name = scene.graph[node]
        geometry = scene.geometry[geometry_name]
        if isinstance(geometry, trimesh.PointCloud) and len(geometry.vertices):
            points = np.asarray(geometry.vertices, dtype=np.float64)
            matrix = np.asarray(transform, dtype=np.float64)
            parts.append(points @ matrix[:3, :3].T + matrix[:3, 3])
    if not parts:
        raise InputError(f"{name}: the file holds no triangles and no vertices")
    positions = np.concatenate(parts)
    if not np.isfinite(positions).all():
        raise InputError(f"{name}: the mesh has non-finite vertex positions")
    return Mesh(positions, np.zeros((0, 3), dtype=np.int64))


def _stored_normals(scene: object, trimesh: object, count: int) -> np.ndarray | None:
    """The vertex normals the file stores, moved like the vertices by ``to_mesh()`` (in
    its order: the scene's mesh instances), or None if some mesh stores none.

    ``Trimesh.vertex_normals`` is no use here: ``to_mesh()`` copies the meshes, and the
    copies have lost the stored normals, so trimesh computes new ones, through SciPy
    (without it: a traceback on stderr and a loop over every vertex and face)."""
    parts = []
    for node in scene.graph.nodes_geometry:
        transform, geometry_name = scene.graph[node]
        geometry = scene.geometry[geometry_name]
        if not isinstance(geometry, trimesh.Trimesh):
            continue
        if "vertex_normals" not in geometry._cache:  # what trimesh's PLY exporter asks
            return None
        linear = np.asarray(transform, dtype=np.float64)[:3, :3]
        try:
            inverse = np.linalg.inv(linear)
        except np.linalg.LinAlgError:
            return None
        parts.append(np.asarray(geometry._cache["vertex_normals"], dtype=np.float64)
                     @ inverse)  # normals move by the inverse transpose
    if not parts:
        return None
    normals = np.concatenate(parts)
    if normals.shape != (count, 3) or not np.isfinite(normals).all():
        return None
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return normals / np.where(length > 0, length, 1)


@contextlib.contextmanager
def _quiet_trimesh() -> Iterator[None]:
    """trimesh logs what it recovers from as warnings, tracebacks included, and with no
    handler of its own Python prints them on stderr: keep them from the user while it
    reads a mesh (what it cannot recover from is an exception, reported as such)."""
    logger = logging.getLogger("trimesh")
    swallow = logging.NullHandler()
    propagate = logger.propagate
    logger.addHandler(swallow)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(swallow)
        logger.propagate = propagate


def _from_trimesh(loaded: object, normals: np.ndarray | None, name: str) -> Mesh:
    positions = np.asarray(loaded.vertices, dtype=np.float64)
    visual = loaded.visual
    colors = texcoords = None
    if getattr(visual, "kind", None) == "vertex":
        colors = np.asarray(visual.vertex_colors, dtype=np.float64)[:, :4] / 255.0
    uv = getattr(visual, "uv", None)
    if uv is not None and len(uv) == len(positions):
        texcoords = np.asarray(uv, dtype=np.float64)
    if not np.isfinite(positions).all():
        raise InputError(f"{name}: the mesh has non-finite vertex positions")
    return Mesh(positions, np.asarray(loaded.faces, dtype=np.int64), normals, colors,
                texcoords)


def _trimesh():
    try:
        import trimesh
    except ImportError:
        raise InputError("reading mesh files needs trimesh: pip install 'gpuisa[render]'")\
            from None
    return trimesh


def _normals(mesh: Mesh) -> np.ndarray:
    """Area-weighted vertex normals from the faces (the sum of the cross products of the
    faces around each vertex, normalised; zero for a vertex in no face)."""
    p = mesh.positions[mesh.faces]
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    count = len(mesh.positions)
    corners = mesh.faces.reshape(-1)
    normals = np.stack([np.bincount(corners, weights=np.repeat(face[:, c], 3),
                                    minlength=count) for c in range(3)], axis=1)
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    return normals / np.where(length > 0, length, 1)


def as_mesh(mesh: Mesh | str | os.PathLike[str] | Mapping[str, object]) -> Mesh:
    """A :class:`Mesh` from a mesh, a file path or a mapping of arrays
    (:func:`mesh_from_arrays`)."""
    if isinstance(mesh, Mesh):
        return mesh
    if isinstance(mesh, str | os.PathLike):
        return load_mesh(mesh)
    if isinstance(mesh, Mapping):
        return mesh_from_arrays(mesh)
    raise InputError(f"mesh must be a Mesh, a file path or a mapping of arrays, got "
                     f"{type(mesh).__name__}")
