"""Geometry shaders on the batch engine: invocations run at once from the state after
invocation 0, are committed in order when they did not depend on the invocations
before them, and run again alone when they did (batch_geometry*.py).

Expected values are traced by hand from the seed's SETEMIT/EMIT rows and notes §6."""

from __future__ import annotations

import numpy as np
import pytest
from picaemu_kit import Asm, assert_same

import gpuisa.pica.engine.batch_geometry_commit as commit
from gpuisa.errors import ShaderFault
from gpuisa.pica.engine import run
from gpuisa.pica.shbin import Dvle, OutputEntry, OutputSemantic, ShaderType, Shbin

POS = OutputSemantic.POSITION


def gs_shbin(a, registers=(0,)):
    outputs = tuple(OutputEntry(POS, r) for r in registers)
    return Shbin(a.program(), (Dvle(ShaderType.GEOMETRY, 0, len(a.code), outputs=outputs),))


@pytest.fixture
def reruns(monkeypatch):
    """Invocations the batch engine ran alone (invocation 0 always is)."""
    lanes = []
    real = commit._Walk.single

    def spy(self, start, lane):
        lanes.append(lane)
        return real(self, start, lane)

    monkeypatch.setattr(commit._Walk, "single", spy)
    return lanes


def quads():
    """Each invocation emits v0 + (0, 0), (1, 0), (0, 1), (1, 1) as two triangles."""
    a = Asm()
    for k in range(4):
        a.flow("setemit", vtxid=k % 3, primemit=int(k >= 2), winding=int(k == 3))
        a.op("add", "o0", f"c{k}", "v0")
        a.flow("emit")
    a.end()
    return gs_shbin(a)


CORNERS = {f"c{k}": [dx, dy, 0, 0] for k, (dx, dy) in enumerate(((0, 0), (1, 0), (0, 1),
                                                                  (1, 1)))}


def test_independent_invocations_run_once(reruns):
    points = np.array([[10 * k, 20 * k, 0, 1] for k in range(40)], dtype=float)
    result = run(quads(), {"v0": points}, uniforms=CORNERS, engine="batch", registers=True)
    assert reruns == [0]
    corners = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0]])
    assert_same(result.vertices["o0"], (points[:, None, :] + corners).reshape(-1, 4))
    # per invocation: entries (0, 1, 2) after the third EMIT; the fourth goes to entry 0
    # and is wound the other way: (3, 1, 2) reversed
    base = 4 * np.arange(40)[:, None, None]
    expected = (base + np.array([[0, 1, 2], [2, 1, 3]])).reshape(-1, 3)
    assert result.primitives.tolist() == expected.tolist()
    assert result.windings.tolist() == [False, True] * 40


def test_a_value_carried_from_invocation_to_invocation(reruns):
    """r0 += v0 in every invocation: each one depends on the one before."""
    a = Asm()
    a.op("add", "r0", "v0", "r0")
    a.op("mov", "o0", "r0")
    a.flow("setemit", vtxid=0)
    a.flow("emit")
    a.end()
    v0 = np.array([[k, 1, 0, 0] for k in range(12)], dtype=float)
    result = run(gs_shbin(a), {"v0": v0}, engine="batch", registers=True)
    totals = np.cumsum(v0, axis=0)
    assert_same(result.temporaries["r0"], totals)
    assert_same(result.vertices["o0"], totals)
    # invocation 1 starts from the state after invocation 0, as speculated; from
    # invocation 2 on, r0 was changed by an invocation after 0
    assert reruns == [0, *range(2, 12)]


def test_bank_parity_decides_which_invocations_must_rerun(reruns):
    """One EMIT per invocation flips the output bank each time (notes §6.2).  o1 is
    written only in the first invocation (b15 false), into bank 0; later EMITs copy o1
    from the bank the invocation starts in: 100 from bank 0, 0 from bank 1.  The
    speculation assumed bank 1 (where invocation 0 left off) for all; the invocations
    that really start in bank 0 and read o1 there run again."""
    a = Asm()
    a.flow("jmpu", dst=2, num=0, id=15)  # 0: b15 true: skip the write
    a.op("mov", "o1", "v0")  # 1
    a.op("mov", "o0", "v0")  # 2
    a.flow("setemit", vtxid=0)  # 3
    a.flow("emit")  # 4
    a.end()  # 5
    v0 = np.array([[k, 0, 0, 0] for k in range(8)], dtype=float)
    v0[0, 0] = 100
    result = run(gs_shbin(a, (0, 1)), {"v0": v0}, uniforms={"b15": False}, engine="batch",
        registers=True)
    assert_same(result.vertices["o0"], v0)
    assert result.vertices["o1"][:, 0].tolist() == [100, 0, 100, 0, 100, 0, 100, 0]
    assert reruns == [0, 2, 4, 6]


def test_a_primitive_with_an_unwritten_entry_in_a_later_invocation_faults():
    a = Asm()
    a.flow("jmpu", dst=4, num=0, id=15)  # 0: b15 true (later invocations): to 4
    a.flow("setemit", vtxid=0)  # 1
    a.flow("emit")  # 2
    a.end()  # 3
    a.flow("setemit", vtxid=1, primemit=1)  # 4: entry 2 was never written
    a.flow("emit")  # 5
    a.end()  # 6
    with pytest.raises(ShaderFault, match="entry 2") as info:
        run(gs_shbin(a), {"v0": np.zeros((5, 4))}, uniforms={"b15": False}, engine="batch",
            registers=True)
    assert info.value.pc == 5
