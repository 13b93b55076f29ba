"""The shapes of generated JIT kernels that speed depends on (their results are checked
against the reference engine by test_jit_differential.py and the engine-wide suite)."""

import pytest
from conftest import JIT
from engine_kit import Asm

from gpuisa.pica.engine.compiled.codegen import INLINE_RULES, analyse, generate
from gpuisa.pica.engine.decode import decode_program
from gpuisa.pica.isa import CompareOp, CondOp


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


@pytest.mark.parametrize("profile", ["uniform", "forward", "mixed"])
def test_block_successors_include_every_transfer_the_reference_engine_makes(profile):
    """The kernels load only registers that some path may read before writing
    (``written_on_every_path``), which is sound only if ``successors`` includes every
    place control goes after a block.  Random programs of the differential generator,
    traced on the reference engine for each of their distinct input rows: each step
    either goes on inside its block, or ends its block and goes to one of the block's
    successors (or past the program, which the kernels hand to the reference engine)."""
    from differential import DISTINCT, case

    from gpuisa.pica.engine.compiled.codegen import _Generator
    from gpuisa.pica.engine.trace import trace

    transfers = 0
    for seed in range(120):
        found = case(seed, profile)
        program = decode_program(found.shbin().program)
        generator = _Generator(program, analyse(program), (), found.precision, frozenset(), 0)
        blocks = [(leader, generator.block_steps(leader)) for leader in generator.leaders]
        successors = generator.successors(blocks)
        last_of = {steps[-1].pc: leader for leader, steps in blocks}
        for vertex in range(DISTINCT):
            steps = trace(found.shbin(), found.rows, vertex=vertex, uniforms=found.uniforms,
                          precision=found.precision, cmp=found.cmp,
                          max_steps=found.max_steps).steps
            for step in steps:
                if step.next_pc is None or step.next_pc >= len(program.steps):
                    continue
                if step.pc in last_of:
                    transfers += 1
                    assert step.next_pc in successors[last_of[step.pc]], (seed, step)
                else:
                    assert step.next_pc == step.pc + 1, (seed, step)
    assert transfers > 1000


def _writes_nothing(a, mnemonic, *operands):
    """Append an instruction whose destination mask is empty (its own descriptor)."""
    a.op(mnemonic, *operands)
    a.opdescs[-1] &= ~0xF


def _empty_mask_programs():
    straight = Asm()
    _writes_nothing(straight, "mad", "r1", "v0", "c0", "v0.wzyx")
    straight.op("mov", "o0", "v0")
    straight.end()
    uniform = Asm()
    uniform.flow("loop", dst=1, id=0)  # 0
    _writes_nothing(uniform, "mad", "r1", "v0", "c0", "v0.wzyx")  # 1: a block of its own
    uniform.op("mov", "o0", "v0")  # 2
    uniform.end()  # 3
    forward = Asm()
    forward.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 0
    forward.flow("jmpc", dst=3, condop=CondOp.X, refx=1)  # 1
    _writes_nothing(forward, "mad", "r1", "v0", "c0", "v0.wzyx")  # 2
    forward.op("mov", "o0", "v0")  # 3
    forward.end()  # 4
    lanes = Asm()
    lanes.op("cmp", None, "c0", "v0", cmpx=CompareOp.GT, cmpy=CompareOp.GT)  # 0
    lanes.flow("callc", dst=4, num=1, condop=CondOp.X, refx=1)  # 1
    lanes.op("mov", "o0", "v0")  # 2
    lanes.end()  # 3
    _writes_nothing(lanes, "add", "r1", "c0", "v0.wzyx")  # 4
    return {"straight": straight, "uniform control": uniform, "divergent blocks": forward,
            "lane by lane": lanes}


@pytest.mark.parametrize("kind", ["straight", "uniform control", "divergent blocks",
                                  "lane by lane"])
def test_an_instruction_that_writes_nothing_leaves_valid_source(kind):
    """An ALU instruction with an empty destination mask has no code once its unused
    reads are dropped: every kind of kernel must still be valid Python (a random
    uniform program on its own kernel once failed with an IndentationError)."""
    from differential import kernel_kind

    program = decode_program(_empty_mask_programs()[kind].program())
    source = generate(program, analyse(program), (), "f24", frozenset(), 0).source
    assert kernel_kind(source) == kind
    compile(source, "<kernel>", "exec")


def test_operand_bounds_by_hand():
    """A factor's bound is 46 minus its partner's (a uniform 16, a register value 23, DPH's
    constant 0); any other operand's 39; a uniform's 16 (primitives.bounded24)."""
    from gpuisa.pica.engine.compiled.codegen import operand_bounds

    mad = "R.round24(R.add64(R.round24(R.mul64(R.work24(s1), R.work24(s2))), R.work24(s3)))"
    assert operand_bounds(mad, {"s1": True, "s2": False, "s3": False}) == {
        "s1": 16, "s2": 30, "s3": 39}
    assert operand_bounds(mad, {"s1": False, "s2": False, "s3": True}) == {
        "s1": 23, "s2": 23, "s3": 16}
    dph = "R.round24(R.add64(v1, R.round24(R.mul64(1.0, R.work24(s4)))))"
    assert operand_bounds(dph, {"s4": False}) == {"s4": 39}
    square = "R.round24(R.mul64(R.work24(s5), R.work24(s5)))"
    assert operand_bounds(square, {"s5": False}) == {"s5": 23}
    assert operand_bounds(" + ".join([square] * 5), {"s5": False}) is None  # past the proof
