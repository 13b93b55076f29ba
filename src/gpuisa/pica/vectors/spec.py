"""How the catalogs describe cases before they are run: a :class:`Group` is one program
(picasso source) with shared uniforms and initial registers, and one :class:`Spec` per
case, each with its own input rows.  The generator runs a group's cases together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .model import Provenance

#: Text of the standard output declarations the catalogs put at the top of a vertex
#: shader: o0-o2 are checked (position, normal quaternion and colour: four components
#: each).
OUTPUTS = (".out - position o0\n.out - normalquat o1\n.out - color o2\n")


@dataclass(frozen=True, slots=True)
class F24:
    """A component given as a raw float24 pattern (loaded exactly in both modes)."""

    pattern: int


#: A component: a Python float (a float32 value) or an exact float24 pattern.
Value = float | F24
Row = Sequence[Value]


@dataclass(frozen=True, slots=True)
class Spec:
    """One case of a group.  ``inputs`` maps 'vN' to its rows (one row per invocation:
    vertex shaders have one)."""

    name: str
    inputs: Mapping[str, Sequence[Row]]
    tags: tuple[str, ...]
    provenance: Provenance
    note: str = ""
    unknowns: tuple[str, ...] = ()


@dataclass(slots=True)
class Group:
    """Cases sharing one program, uniforms and initial flags/address registers.

    ``uniforms`` maps 'cN' to a row, 'iN' to four bytes, 'bN' to a bool.  ``pipeline``
    names the geometry mode when the SHBIN's DVLE 0 (vertex shader) feeds DVLE 1
    (geometry shader); ``primitive_sizes`` is the variable-mode split."""

    family: str
    source: str
    specs: list[Spec] = field(default_factory=list)
    uniforms: Mapping[str, object] = field(default_factory=dict)
    cmp: tuple[bool, bool] = (False, False)
    address: tuple[int, int, int] = (0, 0, 0)
    pad_nops: bool = True
    tags: tuple[str, ...] = ()
    pipeline: str = ""
    #: Semantic attributes whose values after the output map are expected too.
    semantics: tuple[str, ...] = ()

    def add(self, name: str, inputs: Mapping[str, Sequence[Row]], tags: Sequence[str],
            provenance: Provenance, note: str = "", unknowns: Sequence[str] = ()) -> None:
        self.specs.append(Spec(name, inputs, tuple(tags), provenance, note, tuple(unknowns)))


def vs(body: str, header: str = "") -> str:
    """A vertex shader whose main procedure is ``body`` (lines), ending in ``end``."""
    lines = "\n".join(f"    {line}" for line in body.strip().splitlines())
    return f"{header}{OUTPUTS}.proc main\n{lines}\n    end\n.end\n"
