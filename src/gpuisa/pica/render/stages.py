"""Which shader stage a uniform belongs to.

The vertex and the geometry unit each have their own uniform registers, and a uniform
may live in either (devkitPro's geometry-shader example keeps the projection in the
geometry shader).  A name the user gives once (``--uniforms``, ``--uniform-step``, the
matrices ``--camera`` fills) goes to each stage whose DVLE declares it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ...errors import InputError
from ..shbin import ShaderType, Shbin


def declared(shbin: object, index: int | None) -> set[str]:
    """The uniform names (float, integer, boolean) DVLE ``index`` declares (None: the
    first vertex DVLE); empty without a SHBIN."""
    if not isinstance(shbin, Shbin) or not shbin.entries:
        return set()
    if index is None:
        index = next((i for i, e in enumerate(shbin.entries)
                      if e.shader_type == ShaderType.VERTEX), 0)
    return {u.name for u in shbin.entries[index].uniforms if u.bank in ("c", "i", "b")}


def route_uniforms(shbin: object, uniforms: Mapping[str, object] | None,
                   gs_uniforms: Mapping[str, object] | None, *, dvle: int | None,
                   gsh: int | None) -> tuple[dict[str, object] | None,
                                             dict[str, object] | None]:
    """(vertex, geometry) uniforms: a name of ``uniforms`` that only the geometry DVLE
    declares moves to the geometry table (unless that table has it already); one both
    declare goes to both; anything else (register names, unknown names, which the run
    reports) stays with the vertex shader."""
    if gsh is None or not uniforms:
        return (None if uniforms is None else dict(uniforms)), (
            None if gs_uniforms is None else dict(gs_uniforms))
    vs_names, gs_names = declared(shbin, dvle), declared(shbin, gsh)
    vertex: dict[str, object] = {}
    geometry = dict(gs_uniforms or {})
    for name, value in uniforms.items():
        if name in gs_names:
            geometry.setdefault(name, value)
        if name not in gs_names or name in vs_names:
            vertex[name] = value
    return vertex, geometry


#: The engine's message for a uniform read but not given (it knows registers only).
UNSET_UNIFORM = re.compile(r"(float|integer|bool) uniform ([cib])(\d+) is read at pc "
                           r"0x([0-9A-Fa-f]+) but was not given")


def name_unset_uniform(error: InputError, shbin: object, dvles: Sequence[int | None],
                       fixes: Mapping[ShaderType, str]) -> InputError:
    """``error`` in the user's words when it is about a uniform read but not given: the
    name its DVLE declares for the register, and the option that gives it (``fixes``, by
    the stage of the DVLE that declares it); any other error unchanged."""
    match = UNSET_UNIFORM.fullmatch(str(error))
    if match is None or not isinstance(shbin, Shbin):
        return error
    kind, bank, number, pc = match[1], match[2], int(match[3]), int(match[4], 16)
    entries = [shbin.entries[k] for k in dvles
               if k is not None and 0 <= k < len(shbin.entries)]
    # The DVLE whose entry code holds the pc first (a register may have a name in each).
    entries.sort(key=lambda d: not d.main_offset <= pc < max(d.endmain_offset, d.main_offset + 1))
    for dvle in entries:
        for uniform in dvle.uniforms:
            first = uniform.register
            if uniform.bank == bank and first <= number < first + uniform.count:
                row = f"[{number - first}]" if uniform.count > 1 else ""
                return InputError(f"{kind} uniform '{uniform.name}{row}' ({bank}{number}) is "
                                  f"read at pc 0x{pc:03X} but was not given: "
                                  f"{fixes[dvle.shader_type]}")
    return InputError(f"{error}: {fixes[entries[0].shader_type]}" if entries else str(error))
