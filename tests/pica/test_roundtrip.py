"""Disassembly followed by assembly gives back the same bytes.

* Random picasso-style sources: assemble -> disassemble -> assemble must give the
  identical SHBIN, byte for byte (what a picasso-built file needs).
* Random instruction words and descriptor tables (what another toolchain, or a corrupted
  file, may contain): the code words and the descriptor table must come back exactly.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gpuisa.pica.asm import assemble
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import Dvle, Shbin

SWIZ = "xyzw"
TWO_SOURCE = ["add", "dp3", "dp4", "mul", "max", "min", "dph", "dst", "sge", "slt"]
ONE_SOURCE = ["ex2", "lg2", "litp", "flr", "rcp", "rsq", "mov"]


class _SourceGen:
    """A random but valid picasso source: uniforms, constants, procedures, nested
    IF/FOR blocks, calls, jumps and every kind of arithmetic instruction."""

    def __init__(self, rng: random.Random, geometry: bool = False):
        self.rng = rng
        self.geometry = geometry
        self.lines: list[str] = []
        self.labels = 0
        self.pending_labels: list[str] = []

    def swizzle(self, mask: bool = False) -> str:
        rng = self.rng
        if mask:
            comps = sorted(rng.sample(range(4), rng.randint(1, 4)))
            return "" if comps == [0, 1, 2, 3] else "." + "".join(SWIZ[c] for c in comps)
        if rng.random() < 0.4:
            return ""
        return "." + "".join(rng.choice(SWIZ) for _ in range(rng.randint(1, 4)))

    def narrow(self, allow_input: bool = True) -> str:
        rng = self.rng
        if allow_input and rng.random() < 0.3:
            return f"v{rng.randint(0, 3)}"
        return f"r{rng.randint(0, 15)}"

    def wide(self, allow_input: bool = True) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return rng.choice(["mtx[0]", "mtx[1]", "mtx[2]", "mtx[3]", "light", "ones"])
        if roll < 0.35:
            return f"mtx[{rng.choice(['a0.x', 'a0.y', 'aL'])}+{rng.randint(0, 3)}]"
        if roll < 0.5:
            return f"c{rng.randint(10, 40)}"
        return self.narrow(allow_input)

    def src(self, text: str) -> str:
        neg = "-" if self.rng.random() < 0.2 else ""
        return f"{neg}{text}{self.swizzle()}"

    def dst(self) -> str:
        rng = self.rng
        reg = f"o{rng.randint(0, 3)}" if rng.random() < 0.3 else f"r{rng.randint(0, 15)}"
        return reg + self.swizzle(mask=True)

    def sources(self, count: int) -> list[str]:
        """``count`` operands with at most one input register among them (picasso #6)."""
        first = self.wide()
        used_input = first.startswith("v")
        rest = [self.narrow(allow_input=not used_input) for _ in range(count - 1)]
        return [first, *rest]

    def instruction(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.35:
            op = rng.choice(TWO_SOURCE)
            a, b = self.sources(2)
            if op in ("dph", "dst", "sge", "slt") and rng.random() < 0.5:
                a, b = b, a  # a wide second source selects the I-form
            return f"{op} {self.dst()}, {self.src(a)}, {self.src(b)}"
        if roll < 0.6:
            return f"{rng.choice(ONE_SOURCE)} {self.dst()}, {self.src(self.wide())}"
        if roll < 0.7:
            a, b, c = self.narrow(), self.narrow(allow_input=False), self.wide(allow_input=False)
            if rng.random() < 0.5:
                b, c = c, b  # MAD vs MADI
            return f"mad {self.dst()}, {self.src(a)}, {self.src(b)}, {self.src(c)}"
        if roll < 0.78:
            ops = ["eq", "ne", "lt", "le", "gt", "ge"]
            a, b = self.sources(2)
            return f"cmp {self.src(a)}, {rng.choice(ops)}, {rng.choice(ops)}, {self.src(b)}"
        if roll < 0.83:
            return f"mova {rng.choice(['a0.x', 'a0.y', 'a0.xy'])}, {self.src(self.wide())}"
        if roll < 0.88:
            return "nop"
        if roll < 0.93:
            return f"jmpc {self.condition()}, {self.new_label()}"
        return f"jmpu {'!' if rng.random() < 0.5 else ''}b{rng.randint(0, 7)}, {self.new_label()}"

    def condition(self) -> str:
        rng = self.rng

        def flag(name: str) -> str:
            return ("!" if rng.random() < 0.4 else "") + name

        kind = rng.randint(0, 3)
        if kind == 0:
            return flag("cmp.x")
        if kind == 1:
            return flag("cmp.y")
        return f"{flag('cmp.x')} {'&&' if kind == 2 else '||'} {flag('cmp.y')}"

    def new_label(self) -> str:
        self.labels += 1
        name = f"l{self.labels}"
        self.pending_labels.append(name)
        return name

    def body(self, depth: int, in_loop: bool, procs: list[str]) -> None:
        rng = self.rng
        for _ in range(rng.randint(0, 5)):
            roll = rng.random()
            indent = "    " * depth
            if self.pending_labels and rng.random() < 0.3:
                self.lines.append(f"{self.pending_labels.pop()}:")
            if roll < 0.08 and depth < 5:
                self.lines.append(indent + rng.choice([f"ifc {self.condition()}", "ifu b3"]))
                self.body(depth + 1, in_loop, procs)
                if rng.random() < 0.5:
                    self.lines.append(indent + ".else")
                    self.body(depth + 1, in_loop, procs)
                self.lines.append(indent + ".end")
            elif roll < 0.14 and depth < 5:
                self.lines.append(indent + f"for i{rng.randint(0, 3)}")
                self.body(depth + 1, True, procs)
                self.lines.append(indent + ".end")
            elif roll < 0.18 and procs:
                target = rng.choice(procs)
                kind = rng.randint(0, 2)
                call = [f"call {target}", f"callc {self.condition()}, {target}",
                        f"callu b{rng.randint(0, 7)}, {target}"][kind]
                self.lines.append(indent + call)
            elif roll < 0.21 and in_loop:
                self.lines.append(indent + rng.choice(["break", f"breakc {self.condition()}"]))
            elif roll < 0.23 and self.geometry:
                self.lines.append(indent + f"setemit {rng.randint(0, 2)}, prim")
                self.lines.append(indent + "emit")
            else:
                self.lines.append(indent + self.instruction())

    def source(self) -> str:
        rng = self.rng
        self.lines += [
            ".fvec mtx[4]",
            ".fvec light",
            ".constf ones(1.0, 1.0, 1.0, 1.0)",
            f".constf misc({rng.uniform(-9, 9)}, 0.5, -2.25, 1e-3)",
            ".consti loops(3, 0, 1, 0)",
            ".bool flag",
            ".in position",
            ".in normal",
            ".out outpos position",
            ".out outclr color",
        ]
        procs = []
        for i in range(rng.randint(0, 2)):
            name = f"helper{i}"
            self.lines.append(f".proc {name}")
            self.body(1, False, procs)
            self.lines.append("    mov r0, r1")
            self.lines.append(".end")
            procs.append(name)
        self.lines.append(".proc main")
        self.body(1, False, procs)
        for label in self.pending_labels:
            self.lines.append(f"{label}:")
        self.pending_labels.clear()
        self.lines.append("    end")
        self.lines.append(".end")
        return "\n".join(self.lines) + "\n"


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_picasso_sources_round_trip_byte_for_byte(seed):
    rng = random.Random(seed)
    source = _SourceGen(rng).source()
    first = assemble(source).to_bytes()
    text = disassemble(first)
    assert assemble(text).to_bytes() == first, text


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_vertex_and_geometry_pair_round_trips(seed):
    rng = random.Random(seed)
    vertex = _SourceGen(rng).source()
    geometry = ".gsh point c80\n" + _SourceGen(rng, geometry=True).source().replace(
        "main", "gmain"
    ).replace(".proc gmain", ".entry gmain\n.proc gmain").replace("helper", "ghelper")
    first = assemble([("vs.pica", vertex), ("gs.pica", geometry)]).to_bytes()
    text = disassemble(first)
    assert assemble(text).to_bytes() == first, text


def _random_word(rng: random.Random, n: int, descs: int) -> int:
    roll = rng.random()
    if roll < 0.15:
        return rng.getrandbits(32)
    if roll < 0.45:  # flow control with targets inside the program
        op = rng.choice([0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2C, 0x2D])
        return op << 26 | rng.getrandbits(4) << 22 | rng.randrange(n + 1) << 10 | rng.randrange(4)
    if roll < 0.5:
        return rng.choice([0x20, 0x21, 0x22, 0x2A]) << 26
    op = rng.choice([0x00, 0x01, 0x02, 0x03, 0x08, 0x0E, 0x13, 0x18, 0x2E, 0x38, 0x30])
    fields = rng.getrandbits(26) & ~0x7F | rng.randrange(descs)
    if op >= 0x30:
        fields = rng.getrandbits(29) & ~0x1F | rng.randrange(min(descs, 32))
        return op >> 3 << 29 | fields
    return op << 26 | fields


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_random_words_keep_code_and_descriptors(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    descs = rng.randint(1, 12)
    opdescs = [rng.getrandbits(32) if rng.random() < 0.2 else rng.getrandbits(31)
               for _ in range(descs)]
    code = [_random_word(rng, n, descs) for _ in range(n)]
    start = rng.randrange(n)
    shbin = Shbin(Program(code, opdescs), (Dvle(main_offset=start, endmain_offset=n),))
    text = disassemble(shbin)
    again = assemble(text)
    assert again.program.code == shbin.program.code, text
    assert again.program.opdescs == shbin.program.opdescs, text
