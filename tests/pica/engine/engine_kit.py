"""A tiny hand-encoder for engine tests (not gpuisa's assembler).

Instructions are built with gpuisa.pica.encoding.Instruction.make and the operand
descriptors with encode_opdesc, so a test program is exactly the words written here.
Operand syntax: ``-c3.yzx`` (negation, register, swizzle; a short swizzle repeats its
last letter, as picasso does); destinations ``r0.xy`` (mask), ``a0.xy`` for MOVA.
"""

import numpy as np

from gpuisa.pica import Program
from gpuisa.pica.encoding import Instruction, OperandDescriptor, encode, encode_opdesc
from gpuisa.pica.isa import (
    BY_MNEMONIC,
    DESTINATION_BANKS,
    SOURCE_BANKS,
    Kind,
    components_mask,
    components_selector,
)

XYZW = "xyzw"


def _swizzle(text):
    if not text:
        return (0, 1, 2, 3)
    comps = [XYZW.index(c) for c in text]
    return tuple(comps + [comps[-1]] * (4 - len(comps)))


def _source(text):
    negate = text.startswith("-")
    text = text.lstrip("-")
    reg, _, swz = text.partition(".")
    bank, number = reg[0], int(reg[1:])
    field = next(b.base + number for b in SOURCE_BANKS if b.prefix == bank)
    return field, negate, _swizzle(swz)


def _dest(text):
    reg, _, comps = text.partition(".")
    mask = components_mask(XYZW.index(c) for c in (comps or XYZW))
    if reg == "a0":
        return 0, mask
    bank, number = reg[0], int(reg[1:])
    return next(b.base + number for b in DESTINATION_BANKS if b.prefix == bank), mask


class Asm:
    def __init__(self):
        self.code = []
        self.opdescs = []

    @property
    def pc(self):
        return len(self.code)

    def _desc(self, word):
        if word not in self.opdescs:
            self.opdescs.append(word)
        return self.opdescs.index(word)

    def op(self, mnemonic, dst, *sources, idx=0, cmpx=0, cmpy=0):
        """An ALU instruction; returns its address."""
        info = BY_MNEMONIC[mnemonic]
        parsed = [_source(s) for s in sources]
        negs = [p[1] for p in parsed] + [False] * (3 - len(parsed))
        sels = [components_selector(p[2]) for p in parsed] + [0x1B] * (3 - len(parsed))
        fields = {f"src{n}": p[0] for n, p in enumerate(parsed, start=1)}
        mask = 0
        if info.kind is Kind.ARITHMETIC:
            fields["dst"], mask = _dest(dst)
        else:
            fields.update(cmpx=cmpx, cmpy=cmpy)
        desc = encode_opdesc(OperandDescriptor(mask, tuple(negs), tuple(sels)))
        fields["desc"] = self._desc(desc)
        fields["idx"] = idx
        return self.word(encode(Instruction.make(mnemonic, **fields)))

    def flow(self, mnemonic, **fields):
        return self.word(encode(Instruction.make(mnemonic, **fields)))

    def word(self, value):
        self.code.append(value)
        return len(self.code) - 1

    def nop(self):
        return self.flow("nop")

    def end(self):
        return self.flow("end")

    def program(self):
        return Program(self.code, self.opdescs)


def bits(values):
    """float32 bit patterns (tell +0 from -0)."""
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def assert_same(got, expected):
    """Component-wise equality of float32 values: NaN matches NaN, +0 differs from -0."""
    got = np.asarray(got, dtype=np.float32)
    expected = np.asarray(expected, dtype=np.float32)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan), (got, expected)
    assert np.array_equal(bits(got)[~nan], bits(expected)[~nan]), (got, expected)


def one_op(engine, mnemonic, dst, *sources, uniforms=None, inputs=None, precision="f24",
           **fields):
    """Run ``mnemonic dst, sources...`` then END on one vertex; returns the result."""
    from gpuisa.pica.engine import run

    a = Asm()
    a.op(mnemonic, dst, *sources, **fields)
    a.end()
    return run(a.program(), inputs or {}, uniforms=uniforms or {}, engine=engine,
               precision=precision, registers=True)
