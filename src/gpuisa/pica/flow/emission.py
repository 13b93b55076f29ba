"""SETEMIT/EMIT: the geometry unit's emission state, output banking and primitives.

3dbrew's SETEMIT/EMIT rows and pica-emulation.md#geometry: SETEMIT stores VTXID, FLAG_PRIMEMIT and
FLAG_WINDING for the following EMITs.  EMIT copies the output registers of the output
mask, from the active output bank, into vertex buffer entry VTXID and flips the active
bank (pica-emulation.md#output-banks, Azahar PR #2338).  With FLAG_PRIMEMIT, buffer entries 0, 1, 2
form a triangle, its order reversed when FLAG_WINDING is set (3Beans submits the vertices in
reverse order).  The buffer is never cleared, so a later primitive can reuse earlier
vertices (3dbrew: "working hypothesis"; pica-emulation.md#emit).  All of this persists across
invocations of the unit (pica-emulation.md#initial-state).

The state is one flat integer sequence (:func:`new_emission`); the buffer holds the
index of the emitted vertex in each entry, or :data:`UNSET`.  Copying the output
registers is the engine's business (it reads the bank :data:`BANK` names before calling
:func:`emit`); the rules are here, as plain Python that the reference engine runs on a
list; the compiled engine's IR (``engine.compiled.emissionir``) is tested against them.
"""

from __future__ import annotations

from ..isa import GS_VERTEX_BUFFER_ENTRIES

#: Fields of the emission state.
VTXID, PRIMEMIT, WINDING, BANK, BUFFER = range(5)
SIZE = BUFFER + GS_VERTEX_BUFFER_ENTRIES
#: A buffer entry no EMIT has written.
UNSET = -1
#: What :func:`emit` reports.
VERTEX, PRIMITIVE, FAULT = range(3)


def new_emission() -> list[int]:
    """The state of a unit that has not run yet: VTXID 0, no flags, bank 0, empty buffer."""
    return [0, 0, 0, 0] + [UNSET] * GS_VERTEX_BUFFER_ENTRIES


def setemit(emission, vertex_id, primitive, winding):
    emission[VTXID] = vertex_id
    emission[PRIMEMIT] = 1 if primitive else 0
    emission[WINDING] = 1 if winding else 0


def emit(emission, vertex):
    """EMIT of the vertex numbered ``vertex`` (already copied from bank ``emission[BANK]``).

    Returns (what, a, b, c): ``VERTEX`` for a vertex alone; ``PRIMITIVE`` with the
    triangle's vertex numbers in emission order; ``FAULT`` with ``a`` the first buffer
    entry of the triangle that no EMIT has written (the bank is not flipped then).
    """
    emission[BUFFER + emission[VTXID]] = vertex
    if emission[PRIMEMIT] == 0:
        emission[BANK] ^= 1
        return VERTEX, 0, 0, 0
    for entry in range(3):
        if emission[BUFFER + entry] == UNSET:
            return FAULT, entry, 0, 0
    a, b, c = emission[BUFFER], emission[BUFFER + 1], emission[BUFFER + 2]
    emission[BANK] ^= 1
    if emission[WINDING] != 0:
        return PRIMITIVE, c, b, a
    return PRIMITIVE, a, b, c
