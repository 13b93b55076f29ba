"""Feeding a mesh's attributes to a PICA200 shader's inputs (the meshes themselves:
:mod:`gpuisa.render.mesh`).

Shader inputs named by ``.in`` map by name (position/pos, normal/nrm, color/colour/clr,
texcoord/uv/tex); without names v0 = position (w = 1), v1 = vertex colour in 0..1 (white
when the mesh has none), v2 = normal (w = 0), v3 = texture coordinates (u, v, 0, 1).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...errors import InputError
from ...render.mesh import (
    ATTRIBUTES,
    MESH_TYPES,
    Mesh,
    _normals,
    _quiet_trimesh,
    load_mesh,
    mesh_from_arrays,
)
from ..shbin import Dvle

__all__ = ["ATTRIBUTES", "MESH_TYPES", "Mesh", "_normals", "_quiet_trimesh",
           "attribute_for_name", "input_names", "load_mesh", "mesh_from_arrays",
           "shader_inputs"]

#: Words in an input's name that say which attribute it wants (checked in this order:
#: "normal" before "position" so that "posnrm"-like names are not mistaken).
_NAME_HINTS = (("normal", ("norm", "nrm")), ("position", ("pos", "vert")),
               ("color", ("col", "clr")), ("texcoord", ("uv", "tex", "tc")))


def input_names(dvle: Dvle | None) -> dict[int, str]:
    """Input register -> the ``.in`` name the DVLE gives it."""
    if dvle is None:
        return {}
    names = {}
    for uniform in dvle.uniforms:
        if uniform.bank == "v":
            for k in range(uniform.register, uniform.register + uniform.last - uniform.first
                           + 1):
                names.setdefault(k, uniform.name)
    return names


def attribute_for_name(name: str) -> str | None:
    """Which mesh attribute an input called ``name`` wants, from the words in it."""
    lowered = name.lower()
    for attribute, hints in _NAME_HINTS:
        if any(hint in lowered for hint in hints):
            return attribute
    return None


def shader_inputs(mesh: Mesh, dvle: Dvle | None,
                  overrides: Mapping[str, str] | None = None) -> dict[str, np.ndarray]:
    """The mesh's attributes as the shader's inputs ('vN' -> ``(V, 4)``).

    ``overrides`` maps 'vN' or an ``.in`` name to an attribute name ("position",
    "normal", "color", "texcoord")."""
    for key, attribute in (overrides or {}).items():
        if attribute not in ATTRIBUTES:
            raise InputError(f"--attr {key}={attribute}: unknown mesh attribute "
                             f"{attribute!r}; use one of {', '.join(ATTRIBUTES)}")
    names = input_names(dvle)
    by_name = {name: register for register, name in names.items()}
    used = [n for n in range(16) if dvle is not None and dvle.input_mask >> n & 1]
    if not used:  # no input mask: every input the mesh has a default for
        used = sorted(set(names) | set(range(len(ATTRIBUTES))))
    wanted: dict[int, str] = {}
    asked: set[int] = set()  # registers --attr maps
    for register in used:
        if register in names:
            attribute = attribute_for_name(names[register])
            if attribute is None:
                if overrides is None or not {names[register], f"v{register}"} & set(
                        overrides):
                    raise InputError(
                        f"shader input {names[register]} (v{register}): no mesh attribute "
                        f"matches its name; map it with --attr {names[register]}=position|"
                        f"normal|color|texcoord")
                continue
            wanted[register] = attribute
        elif register < len(ATTRIBUTES):
            wanted[register] = ATTRIBUTES[register]
    for key, attribute in (overrides or {}).items():
        register = by_name.get(key)
        if register is None:
            text = key[1:] if key[:1] == "v" else ""
            register = int(text) if text.isdigit() and int(text) < 16 else None
        if register is None or (register not in used and dvle is not None
                                and dvle.input_mask):
            raise InputError(f"--attr {key}: the shader has no input {key!r} (its inputs: "
                             f"{', '.join(_describe(r, names) for r in used) or 'none'})")
        wanted[register] = attribute
        asked.add(register)
    inputs = {}
    for register, attribute in sorted(wanted.items()):
        try:
            inputs[f"v{register}"] = mesh.attribute(attribute)
        except InputError as error:
            if ((dvle is None or not dvle.input_mask) and register not in names
                    and register not in asked):
                continue  # a default the shader may not read; run() reports if it does
            raise InputError(f"shader input {_describe(register, names)}: {error}") from None
    return inputs


def _describe(register: int, names: Mapping[int, str]) -> str:
    return f"{names[register]} (v{register})" if register in names else f"v{register}"
