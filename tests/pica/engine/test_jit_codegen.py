"""The shapes of generated JIT kernels that speed depends on (their results are checked
against the reference engine by test_jit_differential.py and the engine-wide suite)."""

import pytest
from conftest import JIT
from picaemu_kit import Asm

from gpuisa.pica.engine.compiled.codegen import INLINE_RULES, analyse, generate
from gpuisa.pica.engine.decode import decode_program


def test_straight_line_instructions_of_inline_code_share_one_loop_over_lanes():
    """dp4, dp4, add: inline IR only, one loop; rsq calls a compiled rule: a loop of its
    own (a call in the loop would keep LLVM from vectorizing the others); the mul after
    it opens the next loop."""
    a = Asm()
    a.op("dp4", "o0.x", "c0", "v0")
    a.op("dp4", "o0.y", "c1", "v0")
    a.op("add", "r0", "c2", "v0")
    a.op("rsq", "r1", "r0")
    a.op("mul", "o1", "c3", "r1")
    a.end()
    program = decode_program(a.program())
    source = generate(program, analyse(program), (0,), "f24", frozenset()).source
    kernel = source.split("for base in range")[1]
    loops = kernel.split("for j in range(m):")[1:]
    # the loads, [dp4 dp4 add], [rsq], [mul], the stores
    assert len(loops) == 5
    assert loops[1].count("# 0x") == 3 and "rsq" not in loops[1]
    assert loops[2].count("# 0x") == 1 and "rsq" in loops[2]
    assert loops[3].count("# 0x") == 1 and "mul" in loops[3]


@pytest.mark.parametrize("name", sorted(INLINE_RULES))
@JIT.marks[0]
def test_rules_named_inline_are_intrinsics(name):
    from numba.core.extending import _Intrinsic

    from gpuisa.pica.engine.compiled import intrinsics as jit_rules

    assert isinstance(getattr(jit_rules, name), _Intrinsic)
