"""The JIT engine against the reference engine on random programs, bit for bit.

Programs are random but structured so that they mostly terminate: random ALU words
(every arithmetic opcode and I-form, random operand descriptors, relative addressing
through a0.x/a0.y/aL after MOVA), nested IFU/IFC with else blocks, LOOPs (some bodies
sharing their last instruction, some with BREAKC or BREAK), CALL/CALLC/CALLU to
subroutines, forward JMPC/JMPU (some at the last instruction of a scope), and now and
then a word that faults (EMIT in a vertex shader, an unknown opcode).  Inputs and
uniforms mix special float24 patterns (+-0, +-inf, NaN payloads including signalling
ones, subnormal patterns, the range limits) with random values.  The expected results
are the reference engine's, which the other engine tests pin to the seed.

Every random program (500 per precision) runs on the JIT's interpreter kernel (compiled
once); a few also run through the per-program compiler (``COMPILE_THRESHOLD = 0``),
including random straight-line programs, which get the block-of-lanes kernels.
"""

import numpy as np
import pytest

pytest.importorskip("numba")

from gpuisa.errors import GpuIsaError
from gpuisa.pica import Program
from gpuisa.pica.encoding import (
    Instruction,
    OperandDescriptor,
    decode,
    encode,
    encode_opdesc,
)
from gpuisa.pica.engine import F24Bits, jit, run
from gpuisa.pica.engine.api import executable, initial_state
from gpuisa.pica.engine.decode import decode_program
from gpuisa.pica.engine.jit_codegen import generate
from gpuisa.pica.isa import BY_MNEMONIC

ALU = ["add", "dp3", "dp4", "dph", "dst", "ex2", "lg2", "litp", "mul", "sge", "slt", "flr",
       "max", "min", "rcp", "rsq", "mov", "mad", "dphi", "dsti", "sgei", "slti", "madi",
       "cmp", "mova"]
SPECIAL = [0x000000, 0x800000, 0x00FFFF, 0x80FFFF, 0x000001, 0x010000, 0x810000, 0x3F0000,
           0xBF0000, 0x3F8000, 0x400000, 0x7EFFFF, 0xFEFFFF, 0x7F0000, 0xFF0000, 0x7F0001,
           0xFF4001, 0x7F8000, 0x7FFFFF, 0x3E5555, 0x413333, 0x420000, 0x430000, 0x3E0000]
LANES = 4
MAX_STEPS = 400


class Gen:
    """A random program, built with forward references patched at the end."""

    #: The ALU instructions drawn at random; branches on per-lane flags or only on bool
    #: uniforms.
    alu_names = tuple(ALU)
    uniform_branches = False

    def __init__(self, rng, straight=False):
        self.rng = rng
        self.straight = straight  # ALU instructions only, no relative addressing
        self.code: list[int | None] = []
        self.patches: list = []
        self.opdescs = [self.descriptor() for _ in range(12)]
        self.subroutines: list[tuple[int, int]] = []

    def chance(self, p):
        return self.rng.random() < p

    def descriptor(self):
        r = self.rng
        return encode_opdesc(OperandDescriptor(
            int(r.integers(0, 16)), tuple(bool(b) for b in r.random(3) < 0.3),  # mask 0: issue 12
            tuple(int(s) for s in r.integers(0, 256, 3))))

    def source(self, width, wide):
        r = self.rng
        if wide and self.chance(0.4):
            return int(r.integers(0x20, 0x80))  # c0-c95
        if self.chance(0.5):
            return int(r.integers(0, 8))  # v0-v7
        return 0x10 + int(r.integers(0, 8))  # r0-r7

    def alu(self, mnemonic=None):
        r = self.rng
        mnemonic = mnemonic or self.alu_names[int(r.integers(len(self.alu_names)))]
        info = BY_MNEMONIC[mnemonic]
        fmt = info.format
        fields = {}
        for field in fmt.layout.fields:
            name = field.name
            if name == "desc":
                fields[name] = int(r.integers(min(len(self.opdescs), 1 << field.width)))
            elif name.startswith("src"):
                fields[name] = self.source(field.width, field.width == 7)
            elif name == "idx":
                relative = not self.straight and self.chance(0.35)
                fields[name] = int(r.integers(0, 4)) if relative else 0
            elif name == "dst":
                # o0-o3 or r0-r7
                fields[name] = (int(r.integers(0, 4)) if self.chance(0.4)
                                else 0x10 + int(r.integers(0, 8)))
            elif name in ("cmpx", "cmpy"):
                fields[name] = int(r.integers(0, 8))
        self.code.append(encode(Instruction.make(mnemonic, **fields)))

    def cond(self):
        r = self.rng
        return dict(condop=int(r.integers(0, 4)), refx=int(r.integers(0, 2)),
                    refy=int(r.integers(0, 2)))

    def flow(self, mnemonic, **fields):
        self.code.append(None)
        at = len(self.code) - 1
        self.patches.append((at, mnemonic, fields))
        return at

    def set(self, at, **more):
        for k, (pc, mnemonic, fields) in enumerate(self.patches):
            if pc == at:
                self.patches[k] = (pc, mnemonic, {**fields, **more})

    def block(self, depth, budget, in_loop):
        for _ in range(int(self.rng.integers(1, budget + 1))):
            self.statement(depth, in_loop)

    def statement(self, depth, in_loop):
        r = self.rng
        roll = r.random()
        if depth >= 3 or roll < 0.55:
            if self.chance(0.1):
                self.alu("mova")
            self.alu()
            return
        if roll < 0.67:
            self.if_statement(depth, in_loop)
            return
        if roll < 0.79:  # LOOP
            at = self.flow("loop", id=int(r.integers(0, 16)))
            self.block(depth + 1, 3, True)
            if self.chance(0.2):
                self.breaking() if self.chance(0.8) else self.flow("break")
            if self.chance(0.5):
                self.code.append(encode(Instruction.make("nop")))
            self.set(at, dst=len(self.code) - 1)
            return
        if roll < 0.88:  # CALL to a subroutine placed after END
            mnemonic = ("call", "callc", "callu")[int(r.integers(0, 3))]
            extra = {"callc": self.cond(), "callu": dict(id=int(r.integers(0, 16)))}.get(
                mnemonic, {})
            if self.uniform_branches and mnemonic == "callc":
                mnemonic, extra = "call", {}
            at = self.flow(mnemonic, **extra)
            self.subroutines.append((at, int(r.integers(1, 4))))
            return
        if roll < 0.96:
            self.jump_statement(depth, in_loop)
            return
        if in_loop or self.chance(0.3):
            self.breaking()
            return
        self.fault()

    def breaking(self):
        """BREAKC on the flags (with uniform branches: BREAK)."""
        condition = self.cond()
        if self.uniform_branches:
            self.flow("break")
        else:
            self.flow("breakc", **condition)

    def if_statement(self, depth, in_loop):
        """IFU/IFC with an else block."""
        r = self.rng
        mnemonic = "ifu" if self.uniform_branches or self.chance(0.5) else "ifc"
        extra = dict(id=int(r.integers(0, 16))) if mnemonic == "ifu" else self.cond()
        at = self.flow(mnemonic, **extra)
        self.block(depth + 1, 3, in_loop)
        start = len(self.code)
        if self.chance(0.7):
            self.block(depth + 1, 2, in_loop)
        self.set(at, dst=start, num=len(self.code) - start)

    def jump_statement(self, depth, in_loop):
        """A forward JMPC/JMPU over the next statements."""
        r = self.rng
        mnemonic = "jmpc" if not self.uniform_branches and self.chance(0.5) else "jmpu"
        extra = self.cond() if mnemonic == "jmpc" else dict(
            id=int(r.integers(0, 16)), num=int(r.integers(0, 2)))
        at = self.flow(mnemonic, **extra)
        self.block(depth + 1, 2, in_loop)
        self.set(at, dst=len(self.code))

    def fault(self):
        """A word that faults: EMIT in a vertex shader, or an unknown opcode."""
        self.code.append(encode(Instruction.make("emit")) if self.chance(0.5)
                         else 0x10 << 26)

    def program(self):
        if self.straight:
            for _ in range(int(self.rng.integers(12, 24))):
                self.alu()
            self.code.append(encode(Instruction.make("end")))
            return Program(self.code, self.opdescs)
        self.block(0, 8, False)
        self.code.append(encode(Instruction.make("end")))
        for at, size in self.subroutines:
            start = len(self.code)
            for _ in range(size):
                self.alu()
            self.set(at, dst=start, num=size)
        self.code.append(encode(Instruction.make("end")))
        for pc, mnemonic, fields in self.patches:
            self.code[pc] = encode(Instruction.make(mnemonic, **fields))
        return Program(self.code, self.opdescs)


def patterns(rng, shape):
    special = rng.choice(SPECIAL, size=shape)
    random = rng.integers(0, 1 << 24, size=shape)
    return np.where(rng.random(shape) < 0.5, special, random).astype(np.int64)


def float_values(rng, shape):
    pool = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-20, 1e20, np.inf,
                     -np.inf, np.nan, 2.0**64, 2.0**-70, 127.99, 1.0 + 2**-20])
    values = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    return np.where(rng.random(shape) < 0.4, rng.choice(pool, size=shape), values)


def arguments(rng, lanes=LANES, given=0.98):
    inputs = {}
    for n in range(8):
        inputs[f"v{n}"] = (F24Bits(patterns(rng, (lanes, 4))) if rng.random() < 0.5
                           else float_values(rng, (lanes, 4)))
    temporaries = {f"r{n}": float_values(rng, (lanes, 4)) for n in range(8)}
    uniforms = {f"c{n}": F24Bits(patterns(rng, 4)) for n in range(96)
                if rng.random() < given}
    for n in range(4):
        uniforms[f"i{n}"] = [int(rng.integers(0, 4)), int(rng.integers(0, 256)),
                             int(rng.integers(0, 256)), 0]
    for n in range(16):
        uniforms[f"b{n}"] = bool(rng.random() < 0.5)
    address = tuple(int(v) for v in rng.integers(-140, 140, 3))
    cmp = tuple(bool(v) for v in rng.random(2) < 0.5)
    return dict(inputs=inputs, uniforms=uniforms, temporaries=temporaries, address=address,
                cmp=cmp)


def outcome(program, precision, engine, args, max_steps=MAX_STEPS):
    try:
        result = run(program, args["inputs"], uniforms=args["uniforms"],
                     temporaries=args["temporaries"], address=args["address"],
                     cmp=args["cmp"], precision=precision, engine=engine,
                     max_steps=max_steps, registers=True)
    except GpuIsaError as error:
        return type(error).__name__, str(error)
    registers = {**result.outputs, **result.temporaries}
    return ({k: v.view(np.uint32).tolist() for k, v in registers.items()},
            result.cmp.tolist(), result.address.tolist(), result.steps.tolist())


def check(seed, precision, straight=False, lanes=LANES, max_steps=MAX_STEPS):
    rng = np.random.default_rng(seed)
    program = Gen(rng, straight).program()
    args = arguments(rng, lanes, 1.0 if straight else 0.98)
    expected = outcome(program, precision, "reference", args, max_steps)
    got = outcome(program, precision, "jit", args, max_steps)
    assert got == expected, (seed, precision, program)
    return expected


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("block", range(5))
def test_interpreter_matches_the_reference_engine(block, precision):
    kinds = set()
    for seed in range(block * 50, block * 50 + 50):
        expected = check(seed, precision)
        kinds.add(expected[0] if isinstance(expected[0], str) else "ok")
    assert "ok" in kinds  # the generator must mostly produce programs that finish


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_compiled_kernels_match_the_reference_engine(monkeypatch, precision):
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    check(10_001, precision)


@pytest.mark.parametrize("precision", ["f24", "f32"])
def test_straight_line_kernels_match_the_reference_engine(monkeypatch, precision):
    """Programs of ALU instructions only get the block-of-lanes kernels: 70 lanes make
    two full blocks and a partial one; a step limit below the length goes to the
    reference engine for its error."""
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    program = decode_program(Gen(np.random.default_rng(20_000), straight=True).program())
    source = generate(program, jit._analysis(program), (0,), precision, frozenset()).source
    assert "for base in range(lo, hi, " in source  # the block-of-lanes kernel
    assert not isinstance(check(20_000, precision, True, 70)[0], str)
    assert check(20_000, precision, True, 3, max_steps=5)[0] == "ShaderHang"


def test_kernels_are_cached_on_disk(monkeypatch, tmp_path):
    """A compiled kernel is found again through the cache directory once the process has
    forgotten it, and ``jit.ready`` says so (the rule for engine="auto")."""
    monkeypatch.setenv("GPUISA_JIT_CACHE", str(tmp_path))
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(jit, "_sources", type(jit._sources)())
    xyzw = encode_opdesc(OperandDescriptor(15, (False, False, False), (0x1B, 0x1B, 0x1B)))
    program = Program([encode(Instruction.make("add", dst=0, src1=0x20, src2=0, desc=0)),
                       encode(Instruction.make("end"))], [xyzw])  # add o0, c0, v0
    decoded = decode_program(program)
    args = dict(inputs={"v0": np.array([[1.0, -2.0, 0.5, 3.0]] * 3)},
                uniforms={"c0": [0.25, 0.25, -0.5, 1.0]})
    state = lambda: initial_state(executable(program), args["inputs"],  # noqa: E731
                                  uniforms=args["uniforms"], precision="f24")
    assert not jit.ready(decoded, state(), 0, "f24")
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    first = run(program, args["inputs"], uniforms=args["uniforms"], engine="jit", registers=True)
    assert first.outputs["o0"].tolist() == [[1.25, -1.75, 0.0, 4.0]] * 3
    assert list(tmp_path.glob("pica_kernel_*.py"))
    jit._cache.clear()
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 10**9)
    assert jit.ready(decoded, state(), 0, "f24")
    again = run(program, args["inputs"], uniforms=args["uniforms"], engine="jit", registers=True)
    assert again.outputs["o0"].tolist() == first.outputs["o0"].tolist()
    assert jit._cache  # loaded the program's kernel, not the interpreter


def test_generator_covers_the_control_flow_quirks():
    """The random programs do contain what the module docstring promises."""
    text = []
    for seed in range(500):
        gen = Gen(np.random.default_rng(seed))
        program = gen.program()
        text.extend(decode(word).opcode for word in program.code)
    opcodes = set(text)
    for mnemonic in ("ifu", "ifc", "loop", "call", "callc", "callu", "jmpc", "jmpu",
                     "breakc", "break", "mova", "cmp", "madi", "dphi", "ex2", "lg2", "litp",
                     "emit"):
        assert BY_MNEMONIC[mnemonic].opcode in opcodes, mnemonic


class ForwardGen(Gen):
    """Random programs whose control only moves forward: IFU/IFC (nested, with else
    blocks) and forward JMPC/JMPU, plus the occasional faulting word."""

    def statement(self, depth, in_loop):
        roll = self.rng.random()
        if depth >= 3 or roll < 0.5:
            if self.chance(0.1) and "mova" in self.alu_names:
                self.alu("mova")
            self.alu()
        elif roll < 0.8:
            self.if_statement(depth, in_loop)
        elif roll < 0.97:
            self.jump_statement(depth, in_loop)
        else:
            self.fault()

    def program(self):
        if not self.uniform_branches:
            self.alu("cmp")  # per-lane inputs make per-lane flags: the branches diverge
        self.block(0, 5, False)
        self.code.append(encode(Instruction.make("end")))
        for pc, mnemonic, fields in self.patches:
            self.code[pc] = encode(Instruction.make(mnemonic, **fields))
        return Program(self.code, self.opdescs)


@pytest.mark.parametrize(("seed", "precision"), [(30_005, "f24"), (30_017, "f24"),
                                                 (30_013, "f24"), (30_005, "f32")])
def test_divergent_block_kernels_match_the_reference_engine(monkeypatch, seed, precision):
    """Forward-only programs branching on the flags get the kernel that runs each basic
    block over a block of lanes with masked writes (jit_codegen.divergent_kernel); 70
    lanes with inputs that differ per lane make the lanes of a block disagree on their
    branches."""
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    rng = np.random.default_rng(seed)
    gen = ForwardGen(rng)
    program = gen.program()
    decoded = decode_program(program)
    source = generate(decoded, jit._analysis(decoded), (0,), precision, frozenset()).source
    assert "AT[j] = ST[j] == 0 and PC[j] == p" in source
    args = arguments(rng, 70, 0.98)
    expected = outcome(program, precision, "reference", args)
    assert outcome(program, precision, "jit", args) == expected, (seed, program)
    if seed == 30_013:
        assert expected[0] == "ShaderFault"  # a lane reaches a faulting word
    else:
        assert len(set(expected[3])) > 1  # the lanes did take different paths


#: Seeds whose programs have LOOP, CALL(U), IFU, JMPU, MOVA and relative reads with a0.x
#: differing per lane (32_007 also BREAK); 32_043: a lane reads a uniform not given.
SEEDS_UNIFORM = [32_001, 32_007, 32_043]


class UniformForwardGen(ForwardGen):
    """Forward-only programs without CMP, LITP, MOVA or relative addressing, branching
    on bool uniforms only: their kernel of uniform control keeps neither the flags nor
    the address registers."""

    alu_names = tuple(m for m in ALU if m not in ("cmp", "litp", "mova"))
    uniform_branches = True

    def __init__(self, rng):
        super().__init__(rng, straight=True)  # straight: no relative addressing


#: A line only the kernels of uniform control have (jit_codegen.uniform_kernel).
UNIFORM_KERNEL = "# uniform control: one control state per block of lanes"


@pytest.mark.parametrize("seed", [31_001, 31_005, 31_038, 31_040])
def test_uniform_kernels_without_flags_or_address_registers(monkeypatch, seed):
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    rng = np.random.default_rng(seed)
    program = UniformForwardGen(rng).program()
    decoded = decode_program(program)
    source = generate(decoded, jit._analysis(decoded), (0,), "f24", frozenset())
    assert UNIFORM_KERNEL in source.source
    assert not source.address and not source.flags
    args = arguments(rng, 40, 1.0)  # initial flags and address registers come back as given
    expected = outcome(program, "f24", "reference", args)
    assert outcome(program, "f24", "jit", args) == expected, (seed, program)


class UniformGen(Gen):
    """Random programs whose every branch depends on uniforms only (LOOP, CALL, CALLU,
    IFU, JMPU, BREAK), with MOVA and relative addressing through a0.x/a0.y/aL: all lanes
    take the same path, but each reads its own uniform rows."""

    uniform_branches = True


@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("seed", SEEDS_UNIFORM)
def test_uniform_control_kernels_match_the_reference_engine(monkeypatch, seed, precision):
    """Programs branching on uniforms only get the kernel that runs the flow rules once
    per block of lanes and each ALU instruction as a loop over the block
    (jit_codegen.uniform_kernel); 150 lanes make two full blocks and a partial one, and
    per-lane inputs give each lane its own a0.x/a0.y."""
    monkeypatch.setattr(jit, "COMPILE_THRESHOLD", 0)
    rng = np.random.default_rng(seed)
    program = UniformGen(rng).program()
    decoded = decode_program(program)
    source = generate(decoded, jit._analysis(decoded), (0,), precision, frozenset()).source
    assert UNIFORM_KERNEL in source
    args = arguments(rng, 150, 0.98)
    expected = outcome(program, precision, "reference", args)
    assert outcome(program, precision, "jit", args) == expected, (seed, precision, program)


def test_kernels_touch_only_the_registers_the_analysis_names():
    """Kernels get stand-in arrays of no lanes for the registers outside
    ``Analysis.registers``, and for the address registers and flags of kernels that say
    they do not use them (Numba does not check bounds): the generated kernels and the
    interpreter's register rows must never touch another one."""
    from gpuisa.pica.engine import jit_interp
    from gpuisa.pica.engine.jit_codegen import _Generator, analyse

    base = {"v": 0, "r": 16, "o": 32}
    for seed in range(150):
        rng = np.random.default_rng(40_000 + seed)
        gen = ((Gen(rng, straight=seed % 3 == 0) if seed % 2 else ForwardGen(rng))
               if seed % 5 else UniformForwardGen(rng))
        decoded = decode_program(gen.program())
        analysis = analyse(decoded)
        named = {base[bank] + number for bank, number in analysis.registers}
        rows, written = jit_interp.register_rows(decoded)
        assert set(rows.tolist()) == named, seed
        assert set(written.tolist()) <= named, seed
        for precision in ("f24", "f32"):
            generator = _Generator(decoded, analysis, (0,), precision, frozenset())
            source = generator.kernel()
            # ... and no address registers / flags when it gets stand-ins for them
            assert source.address or "address[" not in source.source, seed
            assert source.flags or "cmp[" not in source.source, seed
            touched = generator.used_regs | generator.written_regs | set(generator.rows or {})
            assert touched <= analysis.registers, seed


def test_auto_takes_the_jit_for_one_vertex_once_its_kernel_is_compiled(monkeypatch):
    """engine="auto" runs a small input on the JIT only when this process has compiled
    the kernel already (then it beats the reference engine even for one vertex)."""
    from gpuisa.pica.engine import api

    program = Program((0x08020000, 0x88000000), (0x0006C368,))  # dp4 o0.x, v0, c0 ... end
    inputs = {"v0": np.ones((1, 4), dtype=np.float32)}
    uniforms = {"c0": [1.0, 2.0, 3.0, 4.0]}
    chosen: list[str] = []
    real = api.choose_engine

    def spy(engine, lanes, warm=None):
        name = real(engine, lanes, warm)
        if warm is not None:  # the choice of the engine that runs the vertices
            chosen.append(name)
        return name

    monkeypatch.setattr(api, "choose_engine", spy)
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())  # nothing compiled yet
    first = api.run(program, inputs, uniforms=uniforms, registers=True)
    api.run(program, {"v0": np.ones((200_000, 4), dtype=np.float32)}, uniforms=uniforms,
        registers=True)
    again = api.run(program, inputs, uniforms=uniforms, registers=True)
    assert chosen == ["reference", "jit", "jit"]
    # 1*1 + 1*2 + 1*3 + 1*4 = 10, exact in float24
    assert first.outputs["o0"][0, 0] == again.outputs["o0"][0, 0] == 10.0
