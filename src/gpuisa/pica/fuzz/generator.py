"""Random PICA200 programs and inputs, for differential testing (``pica fuzz`` and the
engine tests' differential checks).

Programs (:class:`Generator`): random ALU opcodes, operand descriptors, swizzles,
negations and masks; nested IF/LOOP/CALL with random conditions, BREAKC/BREAK in loops,
forward JMPC/JMPU, MOVA and relative addressing through a0.x, a0.y and aL; now and then
a word that hangs or faults; geometry shaders add SETEMIT/EMIT.  A *profile* restricts
the shape, so that every kind of compiled kernel is reached: "mixed" (anything),
"straight" (ALU only, no relative uniform reads), "forward" (IF and forward jumps only)
and "uniform" (branches on uniforms only).

Inputs (:func:`random_floats`, :func:`input_rows`, :func:`random_uniforms`) include
infinities, NaNs with payloads, +-0, float24 subnormal patterns, float32 denormals and
the bounds of the bounded arithmetic.
"""

from __future__ import annotations

import numpy as np

from ..encoding import Instruction, OperandDescriptor, encode, encode_opdesc
from ..engine import F24Bits
from ..isa import BY_MNEMONIC, DESTINATION_BANKS, SOURCE_BANKS, Kind
from ..program import Program
from ..shbin import Uniform

#: Distinct input rows of a vertex-shader case, and invocations of a geometry one.
DISTINCT = 8
INVOCATIONS = 24
PROFILES = ("mixed", "straight", "forward", "uniform")

ALU = ["add", "dp3", "dp4", "dph", "dst", "ex2", "lg2", "litp", "mul", "sge", "slt", "flr",
       "max", "min", "rcp", "rsq", "mov", "mova", "dphi", "dsti", "sgei", "slti", "mad",
       "madi", "cmp"]
#: Registers the programs read: v0-v3 (v3 holds small integers, for MOVA), r0-r7, c0-c95.
INPUTS = 4
TEMPS = 8

# float32 values entering as numbers (rounded to float24 in f24 mode when loaded)
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5, 2.0, 3.0, -3.5, 1e-40,
                    -1e-45, 2.0**-62, 2.0**-63, 1.5 * 2.0**-62, 2.0**63, 2.0**64, 3.4e38,
                    127.99609375, 128.0, -129.0, 1e20, -1e-20,
                    # the bounds of f24 kernels' bounded arithmetic (primitives.bounded24)
                    2.0**-16, 2.0**-23, -(2.0**-24), 2.0**-30, -(2.0**-31), 2.0**-39,
                    2.0**-40, 2.0**30, -(2.0**30 - 2.0**13)], dtype=np.float32)
NAN_PATTERNS = np.array([0x7FC00000, 0xFFC00000, 0x7F800080, 0x7FC12300, 0xFFBFFF80],
                        dtype=np.uint32)
# float24 patterns entering exactly (F24Bits): zeros, subnormals, extremes, NaNs
F24_SPECIAL = [0x000000, 0x800000, 0x00FFFF, 0x800001, 0x010000, 0x7EFFFF, 0xFEFFFF,
               0x7F0000, 0xFF0000, 0x7F0001, 0xFF8000, 0x7FFFFF, 0x3F0000, 0xBF8000]
NOP = encode(Instruction.make("nop"))


# -- programs -------------------------------------------------------------------------------


def _field(banks, prefix, number):
    return next(b.base + number for b in banks if b.prefix == prefix)


class Generator:
    """Builds one random structured program of a profile (see the module docstring)."""

    def __init__(self, rng: np.random.Generator, geometry: bool = False,
                 profile: str = "mixed"):
        self.rng = rng
        self.profile = profile
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
        if profile != "mixed":
            self.hazard = False
            # Few basic blocks for "forward", short geometry shaders (the seeds of
            # these profiles keep the programs they were made with).
            short = profile == "forward" or geometry
            self.budget = int(rng.integers(4, 12 if short else 30))
        #: Output registers every EMIT sends (geometry), written before each in "straight".
        self.outputs: tuple[int, ...] = ()

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
        if mnemonic == "mova" and self.geometry and self.profile == "straight":
            mnemonic = "mov"  # the vectorized geometry kernel takes no MOVA
        info = BY_MNEMONIC[mnemonic]
        fmt = info.format
        fields: dict[str, int] = {"desc": int(r.integers(0, len(self.opdescs)))}
        if fmt.name in ("5", "5i"):
            fields["desc"] %= 32  # MAD's descriptor field has 5 bits
        for slot in fmt.sources:
            fields[slot] = self.source(fmt.source_width(slot) == 7)
        fields["idx"] = int(r.integers(0, 4)) if r.random() < 0.4 else 0
        if self.profile == "straight":
            fields["idx"] = 0  # no relative uniform reads
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
        statement = self.statement if self.profile == "mixed" else self.restricted_statement
        for _ in range(1000 if depth == 0 else int(r.integers(1, 6))):
            if self.budget <= 0:
                return
            self.budget -= 1
            statement(r.random(), depth, loops)

    def statement(self, choice: float, depth: int, loops: int) -> None:
        """One statement of the "mixed" profile (``choice`` picks which)."""
        r = self.rng
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

    def restricted_statement(self, choice: float, depth: int, loops: int) -> None:
        """One statement of the profiles other than "mixed"."""
        if self.profile == "straight" or choice < 0.5 or depth >= 3:
            if self.geometry and choice > 0.85:
                self.emission()
            else:
                self.alu()
        elif choice < 0.7:
            self.if_block(depth, loops)
        elif self.profile == "forward" or choice < 0.78:
            self.forward_jump(depth, loops)
        elif choice < 0.88:
            self.loop_block(depth, loops)
        elif choice < 0.95:
            self.call()
        elif loops:
            self.word(self.make("break"))
        else:
            self.alu()

    def write_outputs(self) -> None:
        """MOV xyzw of an input into every output register EMIT sends."""
        full = len(self.opdescs) - 1  # the prologue's descriptor: xyzw, no swizzle
        for number in self.outputs:
            self.word(self.make("mov", dst=_field(DESTINATION_BANKS, "o", number),
                                src1=_field(SOURCE_BANKS, "v", int(self.rng.integers(0, INPUTS))),
                                idx=0, desc=full))

    def emission(self) -> None:
        """SETEMIT (any of the 4 buffer entries, random flags) and/or EMIT."""
        r = self.rng
        if self.profile == "straight":
            self.write_outputs()
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
        uniform = r.random() < 0.3 or self.profile == "uniform"
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
        uniform = r.random() < 0.3 or self.profile == "uniform"
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
        elif kind < 0.8 and self.profile == "uniform":
            how = ("call", {})
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
        self.outputs = outputs
        straight = self.profile == "straight"  # every temporary written before a read
        if r.random() < 0.5 or straight:
            for number in range(TEMPS):
                self.word(self.make("mov", dst=_field(DESTINATION_BANKS, "r", number),
                                    src1=src + int(r.integers(0, INPUTS)), idx=0, desc=full))
            self.write_outputs()
            self.word(self.make("cmp", src1=src, src2=src + 1, desc=full, idx=0, cmpx=2,
                                cmpy=3))
            if not straight:
                self.word(self.make("mova", src1=src + 3, idx=0, desc=full))
        if r.random() < 0.6:
            for entry in range(3):
                self.word(self.make("setemit", vtxid=entry, primemit=0, winding=0))
                self.write_outputs()
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


def random_floats(rng: np.random.Generator, shape, wild: bool) -> np.ndarray:
    nice = (rng.uniform(-8, 8, shape) * 2.0 ** rng.integers(-6, 7, shape)).astype(np.float32)
    if not wild:
        return nice
    pick = rng.random(shape)
    special = SPECIAL[rng.integers(0, len(SPECIAL), shape)]
    nans = NAN_PATTERNS[rng.integers(0, len(NAN_PATTERNS), shape)].view(np.float32)
    return np.where(pick < 0.25, special, np.where(pick < 0.32, nans, nice))


def input_rows(rng: np.random.Generator, precision: str, wild: bool) -> dict[str, object]:
    """The distinct input rows: v0-v2 floats (or exact float24 patterns), v3 integers."""
    rows: dict[str, object] = {}
    for n in range(INPUTS - 1):
        if wild and precision == "f24" and rng.random() < 0.3:
            patterns = rng.choice(F24_SPECIAL + list(rng.integers(0, 1 << 24, 8)),
                                  size=(DISTINCT, 4))
            rows[f"v{n}"] = F24Bits(np.asarray(patterns, dtype=np.int64))
        else:
            rows[f"v{n}"] = random_floats(rng, (DISTINCT, 4), wild)
    rows["v3"] = rng.integers(-140, 140, (DISTINCT, 4)).astype(np.float32)
    return rows


def random_uniforms(rng: np.random.Generator, wild: bool) -> tuple[dict[str, object], tuple]:
    """Uniforms for c0-c95 as two DVLE-named ranges (one conversion each instead of 96),
    sometimes with a gap of registers that are not given; i0-i3; b0-b15."""
    low = int(rng.integers(20, 90))
    gap = int(rng.integers(1, 6)) if rng.random() < 0.1 else 0
    names = (Uniform.in_bank("low", "c", 0, low), Uniform.in_bank("high", "c", low + gap,
                                                                   96 - low - gap))
    table = random_floats(rng, (96, 4), wild)
    if wild:  # mostly ordinary uniforms even in wild cases
        ordinary = rng.random(96) < 0.7
        table[ordinary] = random_floats(rng, (96, 4), False)[ordinary]
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
