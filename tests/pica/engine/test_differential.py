"""Differential test: the batch engine against the reference engine, bit for bit.

Random valid programs (random ALU opcodes, operand descriptors, swizzles, negations and
masks; nested IF/LOOP/CALL with random conditions, BREAKC/BREAK in loops, forward
JMPC/JMPU, MOVA and relative addressing through a0.x, a0.y and aL) run on 64 lanes
whose inputs include infinities, NaNs with payloads, +-0, float24 subnormal patterns
and float32 denormals.  Every register, flag, address register and step count must
agree bit for bit (NaN payloads and zero signs included), and a program that hangs or
faults must raise the same error.  The lanes repeat 8 distinct input rows in shuffled
order, so that the reference engine runs only the distinct rows while the batch engine
sees divergence, reconvergence and duplicate lanes in every position.

A failure prints a reproducer: the seed, the program's disassembly, the words, the
uniforms and the first differing lane's inputs and register.

``GPUISA_DIFFERENTIAL_PROGRAMS`` (default 2000) sets how many programs run; each runs in
f24 or f32 mode (alternately), so both precisions get half.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from gpuisa.errors import GpuIsaError
from gpuisa.pica import Program
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.encoding import Instruction, OperandDescriptor, encode, encode_opdesc
from gpuisa.pica.engine import F24Bits, run
from gpuisa.pica.isa import BY_MNEMONIC, DESTINATION_BANKS, SOURCE_BANKS, Kind
from gpuisa.pica.shbin import Dvle, Shbin, Uniform

PROGRAMS = int(os.environ.get("GPUISA_DIFFERENTIAL_PROGRAMS", "2000"))
PER_TEST = 50
LANES = 64
DISTINCT = 8

ALU = ["add", "dp3", "dp4", "dph", "dst", "ex2", "lg2", "litp", "mul", "sge", "slt", "flr",
       "max", "min", "rcp", "rsq", "mov", "mova", "dphi", "dsti", "sgei", "slti", "mad",
       "madi", "cmp"]
#: Registers the programs read: v0-v3 (v3 holds small integers, for MOVA), r0-r7, c0-c95.
INPUTS = 4
TEMPS = 8

# float32 values entering as numbers (rounded to float24 in f24 mode when loaded)
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5, 2.0, 3.0, -3.5, 1e-40,
                    -1e-45, 2.0**-62, 2.0**-63, 1.5 * 2.0**-62, 2.0**63, 2.0**64, 3.4e38,
                    127.99609375, 128.0, -129.0, 1e20, -1e-20], dtype=np.float32)
NAN_PATTERNS = np.array([0x7FC00000, 0xFFC00000, 0x7F800080, 0x7FC12300, 0xFFBFFF80],
                        dtype=np.uint32)
# float24 patterns entering exactly (F24Bits): zeros, subnormals, extremes, NaNs
F24_SPECIAL = [0x000000, 0x800000, 0x00FFFF, 0x800001, 0x010000, 0x7EFFFF, 0xFEFFFF,
               0x7F0000, 0xFF0000, 0x7F0001, 0xFF8000, 0x7FFFFF, 0x3F0000, 0xBF8000]


# -- programs -------------------------------------------------------------------------------


def _field(banks, prefix, number):
    return next(b.base + number for b in banks if b.prefix == prefix)


class Generator:
    """Builds one random structured program."""

    def __init__(self, rng: np.random.Generator, geometry: bool = False):
        self.rng = rng
        #: Geometry shaders: SETEMIT/EMIT are ordinary statements, and outputs may be
        #: only o0-o6.
        self.geometry = geometry
        self.code: list[int] = []
        self.opdescs = [int(w) for w in rng.integers(0, 1 << 31, rng.integers(4, 17))]
        #: Placeholder pc of each CALL and how it calls.
        self.procedures: list[tuple[int, tuple[str, dict[str, int]]]] = []
        self.budget = int(rng.integers(6, 40))
        #: One hazard per few programs: an instruction that hangs or faults if reached.
        self.hazard = rng.random() < 0.08

    def word(self, value: int) -> int:
        self.code.append(value)
        return len(self.code) - 1

    def make(self, mnemonic: str, **fields) -> int:
        return encode(Instruction.make(mnemonic, **fields))

    def patch(self, pc: int, mnemonic: str, **fields) -> None:
        self.code[pc] = self.make(mnemonic, **fields)

    def condition(self) -> dict[str, int]:
        """A random condition, usually right after a CMP of per-lane values, so that
        lanes disagree."""
        r = self.rng
        if r.random() < 0.7:
            fields = dict(src1=self.source(True), src2=self.source(False),
                          desc=int(r.integers(0, len(self.opdescs))),
                          idx=int(r.integers(0, 4)) if r.random() < 0.3 else 0,
                          cmpx=int(r.integers(0, 6)), cmpy=int(r.integers(0, 8)))
            self.word(self.make("cmp", **fields))
        return dict(condop=int(r.integers(0, 4)), refx=int(r.integers(0, 2)),
                    refy=int(r.integers(0, 2)))

    # -- ALU instructions ------------------------------------------------------------------

    def source(self, wide: bool) -> int:
        r = self.rng
        kind = r.integers(0, 3 if wide else 2)
        if kind == 0:
            return _field(SOURCE_BANKS, "v", int(r.integers(0, INPUTS)))
        if kind == 1:
            return _field(SOURCE_BANKS, "r", int(r.integers(0, TEMPS)))
        return _field(SOURCE_BANKS, "c", int(r.integers(0, 96)))

    def alu(self) -> None:
        r = self.rng
        mnemonic = str(r.choice(ALU))
        info = BY_MNEMONIC[mnemonic]
        fmt = info.format
        fields: dict[str, int] = {"desc": int(r.integers(0, len(self.opdescs)))}
        if fmt.name in ("5", "5i"):
            fields["desc"] %= 32  # MAD's descriptor field has 5 bits
        for slot in fmt.sources:
            fields[slot] = self.source(fmt.source_width(slot) == 7)
        fields["idx"] = int(r.integers(0, 4)) if r.random() < 0.4 else 0
        if info.kind is Kind.COMPARE:
            fields["cmpx"], fields["cmpy"] = (int(v) for v in r.integers(0, 8, 2))
        elif mnemonic != "mova":
            bank = "o" if r.random() < 0.4 else "r"
            number = int(r.integers(0, (7 if self.geometry else 16) if bank == "o" else TEMPS))
            fields["dst"] = _field(DESTINATION_BANKS, bank, number)
        self.word(self.make(mnemonic, **fields))

    # -- structure ---------------------------------------------------------------------------

    def block(self, depth: int, loops: int) -> None:
        """A few statements (the main block: until the budget runs out)."""
        r = self.rng
        for _ in range(1000 if depth == 0 else int(r.integers(1, 6))):
            if self.budget <= 0:
                return
            self.budget -= 1
            choice = r.random()
            if choice < 0.45 or depth >= 3:
                self.alu()
            elif choice < 0.55:
                self.if_block(depth, loops)
            elif choice < 0.63:
                self.loop_block(depth, loops)
            elif choice < 0.70:
                self.call()
            elif choice < 0.78:
                self.forward_jump(depth, loops)
            elif choice < 0.88 and loops:
                self.word(self.make("breakc", **self.condition()) if r.random() < 0.9
                          else self.make("break"))
            elif choice < 0.93:
                if self.geometry and r.random() < 0.8:
                    self.emission()
                else:
                    self.word(self.make("nop"))
            elif self.hazard and r.random() < 0.5:
                self.hazard = False
                self.word(self.danger())
            else:
                self.alu()

    def emission(self) -> None:
        """SETEMIT (any of the 4 buffer entries, random flags) and/or EMIT."""
        r = self.rng
        if r.random() < 0.7:
            self.word(self.make("setemit", vtxid=int(r.integers(0, 4)),
                                primemit=int(r.random() < 0.5), winding=int(r.integers(0, 2))))
        if r.random() < 0.8:
            self.word(self.make("emit"))

    def danger(self) -> int:
        """A word that hangs or faults when executed (or may loop until max_steps)."""
        r = self.rng
        choice = int(r.integers(0, 5))
        if choice == 0:
            return self.make("break")
        if choice == 1:
            return self.make("jmpc", dst=int(r.integers(0, len(self.code) + 1)),
                             **self.condition())
        if choice == 2:
            return (0x10 + int(r.integers(0, 2))) << 26  # an opcode with no known function
        if choice == 3:
            return self.make("emit")
        return self.make("mov", dst=_field(DESTINATION_BANKS, "r", 0), desc=0, idx=0,
                         src1=_field(SOURCE_BANKS, "v", 7))  # an input that is not given

    def if_block(self, depth: int, loops: int) -> None:
        r = self.rng
        uniform = r.random() < 0.3
        cond = dict(id=int(r.integers(0, 16))) if uniform else self.condition()
        at = self.word(0)
        self.block(depth + 1, loops)
        dst = len(self.code)
        if r.random() < 0.6:
            self.block(depth + 1, loops)
        num = len(self.code) - dst
        self.patch(at, "ifu" if uniform else "ifc", dst=dst, num=num, **cond)

    def loop_block(self, depth: int, loops: int) -> None:
        at = self.word(0)
        self.block(depth + 1, loops + 1)
        if len(self.code) == at + 1:
            self.alu()
        self.patch(at, "loop", dst=len(self.code) - 1, id=int(self.rng.integers(0, 4)))

    def forward_jump(self, depth: int, loops: int) -> None:
        r = self.rng
        uniform = r.random() < 0.3
        cond = (dict(num=int(r.integers(0, 2)), id=int(r.integers(0, 16))) if uniform
                else self.condition())
        at = self.word(0)
        self.block(depth + 1, loops)
        self.patch(at, "jmpu" if uniform else "jmpc", dst=len(self.code), **cond)

    def call(self) -> None:
        r = self.rng
        kind = r.random()
        if kind < 0.4:
            how: tuple[str, dict[str, int]] = ("call", {})
        elif kind < 0.8:
            how = ("callc", self.condition())
        else:
            how = ("callu", dict(id=int(r.integers(0, 16))))
        self.procedures.append((self.word(0), how))

    def procedure_code(self, at: int, how: tuple[str, dict[str, int]]) -> None:
        """A procedure placed after the main program, called from ``at``."""
        start = len(self.code)
        self.budget = max(self.budget, 3)
        self.block(2, 0)
        if self.rng.random() < 0.1:
            self.word(self.make("end"))
        mnemonic, cond = how
        self.patch(at, mnemonic, dst=start, num=len(self.code) - start, **cond)

    def prologue(self, outputs: tuple[int, ...]) -> None:
        """Geometry shaders: often write every temporary and output first (so that
        invocations do not depend on each other) and fill vertex buffer entries 0-2."""
        r = self.rng
        src = _field(SOURCE_BANKS, "v", 0)
        full = len(self.opdescs)  # mask xyzw, swizzles xyzw, no negation
        self.opdescs.append(encode_opdesc(OperandDescriptor(0xF, (False,) * 3, (0x1B,) * 3)))

        def write_outputs() -> None:
            for number in outputs:
                self.word(self.make("mov", dst=_field(DESTINATION_BANKS, "o", number),
                                    src1=src + int(r.integers(0, INPUTS)), idx=0, desc=full))

        if r.random() < 0.5:
            for number in range(TEMPS):
                self.word(self.make("mov", dst=_field(DESTINATION_BANKS, "r", number),
                                    src1=src + int(r.integers(0, INPUTS)), idx=0, desc=full))
            write_outputs()
            self.word(self.make("cmp", src1=src, src2=src + 1, desc=full, idx=0, cmpx=2,
                                cmpy=3))
            self.word(self.make("mova", src1=src + 3, idx=0, desc=full))
        if r.random() < 0.6:
            for entry in range(3):
                self.word(self.make("setemit", vtxid=entry, primemit=0, winding=0))
                write_outputs()
                self.word(self.make("emit"))

    def program(self, outputs: tuple[int, ...] = ()) -> Program:
        if self.geometry:
            self.prologue(outputs)
        self.block(0, 0)
        self.word(self.make("end"))
        done = 0
        while done < len(self.procedures):  # procedures may call further procedures
            at, how = self.procedures[done]
            done += 1
            self.procedure_code(at, how)
            # The return address: only a jump to it reaches this END.
            self.word(self.make("end"))
        return Program(self.code, self.opdescs)


# -- data -----------------------------------------------------------------------------------


def _f32(rng: np.random.Generator, shape, wild: bool) -> np.ndarray:
    nice = (rng.uniform(-8, 8, shape) * 2.0 ** rng.integers(-6, 7, shape)).astype(np.float32)
    if not wild:
        return nice
    pick = rng.random(shape)
    special = SPECIAL[rng.integers(0, len(SPECIAL), shape)]
    nans = NAN_PATTERNS[rng.integers(0, len(NAN_PATTERNS), shape)].view(np.float32)
    return np.where(pick < 0.25, special, np.where(pick < 0.32, nans, nice))


def _rows(rng: np.random.Generator, precision: str, wild: bool) -> dict[str, object]:
    """The distinct input rows: v0-v2 floats (or exact float24 patterns), v3 integers."""
    rows: dict[str, object] = {}
    for n in range(INPUTS - 1):
        if wild and precision == "f24" and rng.random() < 0.3:
            patterns = rng.choice(F24_SPECIAL + list(rng.integers(0, 1 << 24, 8)),
                                  size=(DISTINCT, 4))
            rows[f"v{n}"] = F24Bits(np.asarray(patterns, dtype=np.int64))
        else:
            rows[f"v{n}"] = _f32(rng, (DISTINCT, 4), wild)
    rows["v3"] = rng.integers(-140, 140, (DISTINCT, 4)).astype(np.float32)
    return rows


def _uniforms(rng: np.random.Generator, wild: bool) -> tuple[dict[str, object], Shbin]:
    """Uniforms for c0-c95 as two DVLE-named ranges (one conversion each instead of 96),
    sometimes with a gap of registers that are not given; i0-i3; b0-b15."""
    low = int(rng.integers(20, 90))
    gap = int(rng.integers(1, 6)) if rng.random() < 0.1 else 0
    names = (Uniform.in_bank("low", "c", 0, low), Uniform.in_bank("high", "c", low + gap,
                                                                   96 - low - gap))
    table = _f32(rng, (96, 4), wild)
    if wild:  # mostly ordinary uniforms even in wild cases
        ordinary = rng.random(96) < 0.7
        table[ordinary] = _f32(rng, (96, 4), False)[ordinary]
    uniforms: dict[str, object] = {"low": table[:low], "high": table[low + gap:]}
    if 96 - low - gap == 0:
        del uniforms["high"]
        names = names[:1]
    for n in range(4):
        uniforms[f"i{n}"] = [int(rng.integers(0, 4)), int(rng.integers(0, 256)),
                             int(rng.integers(0, 256)), 0]
    for n in range(16):
        uniforms[f"b{n}"] = bool(rng.integers(0, 2))
    return uniforms, names


def _expand(value: object, order: np.ndarray) -> object:
    if isinstance(value, F24Bits):
        return F24Bits(value.bits[order].astype(np.int64))
    return np.asarray(value)[order]


def case(seed: int):
    """Program, precision, distinct input rows, lane order and uniforms of one case."""
    rng = np.random.default_rng(seed)
    program = Generator(rng).program()
    precision = "f24" if seed % 2 == 0 else "f32"
    wild = bool(rng.random() < 0.6)
    rows = _rows(rng, precision, wild)
    uniforms, names = _uniforms(rng, wild)
    program = Shbin(program, (Dvle(main_offset=0, endmain_offset=len(program.code),
                                   uniforms=names),))
    order = np.concatenate([np.arange(DISTINCT), rng.integers(0, DISTINCT, LANES - DISTINCT)])
    rng.shuffle(order)
    cmp = (bool(rng.integers(0, 2)), bool(rng.integers(0, 2)))
    return program, precision, rows, order, uniforms, cmp


# -- comparison -----------------------------------------------------------------------------


def _outcome(program, inputs, uniforms, precision, cmp, engine):
    try:
        return run(program, inputs, uniforms=uniforms, precision=precision, cmp=cmp,
                   engine=engine, max_steps=2000, registers=True)
    except GpuIsaError as error:
        return error


def _bits(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    return array.view(np.uint32) if array.dtype == np.float32 else array


def _registers(result) -> dict[str, np.ndarray]:
    regs = {**result.outputs, **result.temporaries}
    regs.update(cmp=result.cmp, address=result.address, steps=result.steps[:, None])
    return {name: _bits(value) for name, value in regs.items()}


def _reproducer(seed, program, precision, rows, uniforms, lane_row, what) -> str:
    try:
        text = disassemble(program.program)
    except GpuIsaError as error:  # pragma: no cover - the disassembler handles any words
        text = f"(disassembly failed: {error})"
    lane_inputs = {name: (value.bits[lane_row].tolist() if isinstance(value, F24Bits)
                          else np.asarray(value)[lane_row].view(np.uint32).tolist())
                   for name, value in rows.items()} if lane_row is not None else {}
    ints = {k: v for k, v in uniforms.items() if k[0] in "ib"}
    return (f"\nseed={seed} precision={precision}\n{what}\n"
            f"program = Program({[hex(w) for w in program.program.code]}, "
            f"{[hex(w) for w in program.program.opdescs]})\n"
            f"inputs of that lane (float32 bits, F24Bits patterns for F24Bits inputs): "
            f"{lane_inputs}\nint/bool uniforms: {ints}\n"
            f"(float uniforms: see case({seed}))\n--- disassembly ---\n{text}")


def check(seed: int) -> None:
    program, precision, rows, order, uniforms, cmp = case(seed)
    inputs = {name: _expand(value, order) for name, value in rows.items()}
    got = _outcome(program, inputs, uniforms, precision, cmp, "batch")
    distinct = _outcome(program, rows, uniforms, precision, cmp, "reference")
    if isinstance(distinct, GpuIsaError) or isinstance(got, GpuIsaError):
        # The reference engine reports the first failing lane; on the expanded lanes
        # that is the first lane whose row fails.  Run it on that lane alone... by
        # running the reference on the expanded inputs (errors end early).
        want = _outcome(program, inputs, uniforms, precision, cmp, "reference")
        ok = (type(got) is type(want) and str(got) == str(want)
              and getattr(got, "pc", None) == getattr(want, "pc", None))
        if not ok:
            pytest.fail(_reproducer(seed, program, precision, rows, uniforms, None,
                                    f"reference: {want!r}\nbatch: {got!r}"))
        return
    want = _registers(distinct)
    have = _registers(got)
    for name, expected in want.items():
        expected = expected[order]
        diff = np.flatnonzero((have[name] != expected).any(axis=1))
        if len(diff):
            lane = int(diff[0])
            pytest.fail(_reproducer(
                seed, program, precision, rows, uniforms, int(order[lane]),
                f"lane {lane} (input row {order[lane]}), {name}: reference "
                f"{[hex(v) for v in expected[lane].tolist()]}, batch "
                f"{[hex(v) for v in have[name][lane].tolist()]}"))


@pytest.mark.parametrize("first", range(0, PROGRAMS, PER_TEST))
def test_batch_matches_reference(first):
    with np.errstate(all="ignore"):
        for seed in range(first, min(first + PER_TEST, PROGRAMS)):
            check(seed)
