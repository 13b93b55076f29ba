"""Which shader stage a uniform belongs to.

The vertex and the geometry unit each have their own uniform registers, and a uniform
may live in either (devkitPro's geometry-shader example keeps the projection in the
geometry shader).  A name the user gives once (``--uniforms``, ``--uniform-step``, the
matrices ``--camera`` fills) goes to each stage whose DVLE declares it.
"""

from __future__ import annotations

from collections.abc import Mapping

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
