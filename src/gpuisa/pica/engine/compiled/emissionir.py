"""The emission rules of :mod:`...flow.emission` lowered to LLVM IR, for the geometry
kernels (:mod:`.nativegeometry`).

The state is the flat ``int64`` sequence of :func:`...flow.emission.new_emission`, in
memory (the buffer is indexed by VTXID at run time).  This is the second realisation of
those rules; ``tests/pica/engine/test_emissionir.py`` runs both on the same random
SETEMIT/EMIT sequences and compares every state and result.
"""

from __future__ import annotations

from ...flow import emission as E
from . import textir as ir
from .irtypes import i64


def _field(b: ir.IRBuilder, state: ir.Value, index: ir.Value) -> ir.Value:
    return b.gep(state, [index])


def setemit(b: ir.IRBuilder, state: ir.Value, vertex_id: int, primitive: bool,
            winding: bool) -> None:
    """``emission.setemit`` with its fields as constants."""
    for index, value in ((E.VTXID, vertex_id), (E.PRIMEMIT, int(primitive)),
                         (E.WINDING, int(winding))):
        b.store(i64(value), _field(b, state, i64(index)))


def emit(b: ir.IRBuilder, state: ir.Value, vertex: ir.Value
         ) -> tuple[ir.Value, ir.Value, ir.Value, ir.Value]:
    """``emission.emit`` of the vertex numbered ``vertex``: (what, a, b, c)."""
    vtxid = b.load(_field(b, state, i64(E.VTXID)))
    b.store(vertex, _field(b, state, b.add(vtxid, i64(E.BUFFER))))
    primitive = b.icmp_signed("!=", b.load(_field(b, state, i64(E.PRIMEMIT))), i64(0))
    entries = [b.load(_field(b, state, i64(E.BUFFER + k))) for k in range(3)]
    unset = [b.icmp_signed("==", entry, i64(E.UNSET)) for entry in entries]
    # the first entry no EMIT has written
    missing = b.select(unset[0], i64(0), b.select(unset[1], i64(1), i64(2)))
    fault = b.and_(primitive, b.or_(b.or_(unset[0], unset[1]), unset[2]))
    made = b.and_(primitive, b.not_(fault))
    bank = _field(b, state, i64(E.BANK))
    flipped = b.xor(b.load(bank), i64(1))
    b.store(b.select(fault, b.load(bank), flipped), bank)
    reversed_ = b.icmp_signed("!=", b.load(_field(b, state, i64(E.WINDING))), i64(0))
    first = b.select(reversed_, entries[2], entries[0])
    third = b.select(reversed_, entries[0], entries[2])
    zero = i64(0)
    what = b.select(fault, i64(E.FAULT),
                    b.select(primitive, i64(E.PRIMITIVE), i64(E.VERTEX)))
    return (what, b.select(fault, missing, b.select(made, first, zero)),
            b.select(made, entries[1], zero), b.select(made, third, zero))


__all__ = ["emit", "setemit"]
