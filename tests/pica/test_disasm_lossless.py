"""Disassembly reassembles to the identical SHBIN, for every file the reader accepts.

The contract (README, docs/assembly-extensions.md "Raw SHBIN fields"): for bytes ``b``
that ``Shbin.from_bytes(b, strict=True)`` accepts, ``assemble(disassemble(b))`` writes
the same contents in picasso's layout -- ``b`` itself when ``b`` is laid out as picasso
lays files out (shbin-format.md#offsets), which every file built here is.  Files the reader
only accepts with warnings (registers outside their bank, entry past the code ...) are
not writable by any writer of the canonical layout, so they are not part of it.

Regression files are built field by field from shbin-format.md with ``struct`` (not with
gpuisa's writer); the property test draws the fields of the container with hypothesis;
the mutation test flips bytes of assembled files.
"""

from __future__ import annotations

import random
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shbin_testutil import DvleFields, constant, output

from gpuisa.errors import ShbinError, SourceError
from gpuisa.pica.asm import assemble
from gpuisa.pica.disasm import disassemble
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import (
    Constant,
    ConstantKind,
    Dvle,
    GeometryMode,
    Label,
    OutputEntry,
    ShaderType,
    Shbin,
    Uniform,
)


def round_trip(data: bytes) -> bytes:
    text = disassemble(data)
    try:
        return assemble(text).to_bytes()
    except SourceError as error:  # pragma: no cover - the message is the diagnosis
        raise AssertionError(f"{error}\n--- text ---\n{text}") from None


# -- a picasso-layout SHBIN from its fields (shbin-format.md#layout), by hand ---------------

NOP, END = 0x21 << 26, 0x22 << 26  # 3dbrew opcode table: NOP 0x21, END 0x22


def shbin_bytes(code, opdescs=(), dvles=(), dvlp_version=0, high=None):
    high = high or [0] * len(opdescs)
    n = len(dvles)
    dvlp_size = 0x28 + 4 * len(code) + 8 * len(opdescs)
    offsets, pos = [], 8 + 4 * n + dvlp_size
    for blob in dvles:
        offsets.append(pos)
        pos += len(blob)
    out = b"DVLB" + struct.pack(f"<I{n}I", n, *offsets)
    out += b"DVLP" + struct.pack(
        "<9I",
        dvlp_version,
        0x28,
        len(code),
        0x28 + 4 * len(code),
        len(opdescs),
        dvlp_size,
        0,
        0,
        0,
    )
    out += struct.pack(f"<{len(code)}I", *code)
    out += b"".join(struct.pack("<2I", d, h) for d, h in zip(opdescs, high, strict=True))
    return out + b"".join(dvles)


# -- regression cases of issue 12 item 5 ---------------------------------------------------


def test_declarations_only_second_file_keeps_the_shared_entry_point():
    # picasso: procedures are global, so the second file's DVLE enters `main` of the first
    first = ".out o0 position\n.proc main\n    end\n.end\n"
    data = assemble([("a.pica", first), ("b.pica", ".out o0 position\n")]).to_bytes()
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(endmain=1, out_mask=1, outputs=[output(0, 0, 0xF)]).to_bytes(),
            DvleFields(endmain=1, out_mask=1, outputs=[output(0, 0, 0xF)]).to_bytes(),
        ],
    )
    assert data == expected
    text = disassemble(expected)
    assert "main1" not in text
    assert round_trip(expected) == expected


def test_empty_second_dvle_is_not_lost():
    # a DVLE with no tables at all sharing the first one's entry procedure
    expected = shbin_bytes(
        [END], dvles=[DvleFields(endmain=1).to_bytes(), DvleFields(endmain=1).to_bytes()]
    )
    assert round_trip(expected) == expected


def test_dummy_output_of_a_setemit_vertex_source_keeps_its_merge_flag():
    # `setemit` turns the DVLE into a geometry shader of the shared space: merge stays 0
    source = ".out o0 dummy\n.proc main\n    setemit 0\n    end\n.end\n"
    setemit = 0x2B << 26  # SETEMIT vtx 0, no flags (3dbrew)
    expected = shbin_bytes(
        [setemit, END],
        dvles=[
            DvleFields(shader_type=1, endmain=2, out_mask=1, outputs=[output(9, 0, 0xF)]).to_bytes()
        ],
    )
    assert assemble(source).to_bytes() == expected
    assert round_trip(expected) == expected


@pytest.mark.parametrize("merge", [0, 1])
def test_merge_flag_of_a_geometry_shader_with_and_without_dummy(merge):
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(
                endmain=1, shader_type=1, merge=merge, out_mask=1, outputs=[output(9, 0, 0xF)]
            ).to_bytes()
        ],
    )
    assert round_trip(expected) == expected
    no_dummy = shbin_bytes(
        [END], dvles=[DvleFields(endmain=1, shader_type=1, merge=merge).to_bytes()]
    )
    assert round_trip(no_dummy) == no_dummy


def test_nameless_uniform_survives():
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(
                endmain=1, uniforms=[("a", 0x10, 0x10), ("", 0x11, 0x11), ("b", 0x12, 0x12)]
            ).to_bytes()
        ],
    )
    text = disassemble(expected)
    assert '""' in text
    assert round_trip(expected) == expected


def test_version_words_are_carried():
    expected = shbin_bytes(
        [END], dvlp_version=0xDEADBEEF, dvles=[DvleFields(endmain=1, version=0).to_bytes()]
    )
    assert round_trip(expected) == expected
    nihstro = shbin_bytes([END], dvles=[DvleFields(endmain=1, version=0x1234).to_bytes()])
    assert round_trip(nihstro) == nihstro


def test_duplicate_uniform_names_and_odd_names():
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(
                endmain=1,
                uniforms=[
                    ("m", 0x10, 0x13),
                    ("m", 0x14, 0x14),  # same name twice
                    ('a b;c:d,"e\\', 0x15, 0x15),  # characters the lexer would take
                    ("x$y", 0x16, 0x16),  # picasso writes `$` as `.`: not declarable
                    ("_private", 0x17, 0x17),
                    ("r0", 0x18, 0x18),  # reads as a register
                    ("late", 0x00, 0x00),  # after higher registers: not sorted
                ],
            ).to_bytes()
        ],
    )
    assert round_trip(expected) == expected


def test_uniform_table_not_sorted_by_register():
    # picasso sorts its entries by register (shbin-format.md#dvle-uniforms); this file does not
    expected = shbin_bytes(
        [END], dvles=[DvleFields(endmain=1, uniforms=[("b", 0x10, 0x10), ("a", 0, 0)]).to_bytes()]
    )
    assert round_trip(expected) == expected


def test_uniforms_of_two_vertex_dvles_in_the_shared_space():
    # vertex files share one uniform space: a register, or a name, used twice differently
    # cannot be declared twice
    for second in ([("b", 0x12, 0x12)], [("a", 0x20, 0x23)], [("a", 0x10, 0x13)]):
        expected = shbin_bytes(
            [END],
            dvles=[
                DvleFields(endmain=1, uniforms=[("a", 0x10, 0x13)]).to_bytes(),
                DvleFields(endmain=1, uniforms=second).to_bytes(),
            ],
        )
        assert round_trip(expected) == expected, second


def test_raw_directive_errors():
    def error(text):
        with pytest.raises(SourceError) as info:
            assemble(text + "\n.proc main\n    end\n.end\n")
        return str(info.value)

    assert "expected KEY=VALUE" in error(".dvle colour=1")
    assert "Value out of range (0..65535): 65536" in error(".dvle version=0x10000")
    assert "expected a quoted name" in error(".dvleuniform 0x10, 0x10, name")
    assert "invalid character in name" in error('.dvleuniform 0x10, 0x10, "a b"')
    assert "invalid escape" in error('.dvleuniform 0x10, 0x10, "\\q"')
    assert "missing parameter" in error(".dvleout 0, 0, 0xF")
    assert "not allowed inside a block" in error(".proc p\n.dvle merge=1\n.end")
    assert "dvles=0, but the source defines 1 DVLE(s)" in error(".dvlp dvles=0")
    assert ".opdeschigh gives 2 words for 0" in error(".opdeschigh 1, 2")


def test_two_output_entries_for_one_register():
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(
                endmain=1,
                out_mask=1,
                outputs=[
                    output(0, 0, 0xF),
                    output(2, 0, 0xF),
                    output(0x77, 1, 0x3),
                    output(3, 9, 0x3),
                    output(0, 2, 0),
                ],
            ).to_bytes()
        ],
    )
    assert round_trip(expected) == expected


def test_opdesc_second_words_and_header_masks():
    mov = 0x13 << 26 | 0x10 << 21 | 0x11 << 12  # mov r0, r1 with descriptor 0
    full = 0xF | 0x1B << 5 | 0x1B << 14
    expected = shbin_bytes(
        [mov, END],
        opdescs=[full | 1 << 31],  # Nintendo-style (shbin-format.md#dvlp)
        high=[0xF],
        dvles=[
            DvleFields(endmain=2, in_mask=0xFFFF, out_mask=0x8001, gsh=(2, 7, 9, 11)).to_bytes()
        ],
    )
    assert round_trip(expected) == expected


def test_raw_constants():
    expected = shbin_bytes(
        [END],
        dvles=[
            DvleFields(
                endmain=1,
                constants=[
                    constant(2, 95, 0x3F0000, 0xFF000000, 0x7F0001, 0x800000),
                    constant(1, 3, 0x04030201, 0, 0, 1),  # an integer entry with junk after it
                    constant(0, 15, 2, 0, 0, 0),  # a bool that is neither 0 nor 1
                    constant(0, 0, 1, 0, 0, 0),
                ],
            ).to_bytes()
        ],
    )
    assert round_trip(expected) == expected


def test_entry_points_that_are_no_procedure():
    code = [NOP, NOP, END]
    for main, endmain in ((2, 1), (1, 1), (0, 0), (3, 3)):
        expected = shbin_bytes(code, dvles=[DvleFields(main=main, endmain=endmain).to_bytes()])
        assert round_trip(expected) == expected, (main, endmain)


def test_no_dvle_at_all():
    expected = shbin_bytes([NOP, END])
    assert round_trip(expected) == expected
    assert round_trip(shbin_bytes([])) == shbin_bytes([])


def test_label_table_entries():
    data = Shbin(
        Program([NOP, END]),
        (Dvle(main_offset=0, endmain_offset=2, labels=(Label(1, 1, "loop"), Label(7, 0, ""))),),
    ).to_bytes()
    assert round_trip(data) == data


# -- property: every SHBIN the reader accepts ----------------------------------------------

u8 = st.integers(0, 0xFF)
u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
names = st.one_of(
    st.sampled_from(["", "m", "mvp", "a.b", "x$y", "_p", "r1", "c0", "aL", "main", "m"]),
    st.text(st.characters(min_codepoint=1, max_codepoint=0x7F), max_size=6),
)
# The uniform register space of shbin-format.md#dvle-uniforms.
BANKS = {"v": (0x00, 16), "c": (0x10, 96), "i": (0x70, 4), "b": (0x78, 16)}


@st.composite
def uniforms(draw) -> Uniform:
    base, size = BANKS[draw(st.sampled_from("vcib"))]
    first = draw(st.integers(0, size - 1))
    count = draw(st.integers(1, min(4, size - first)))
    return Uniform(draw(names), base + first, base + first + count - 1)


@st.composite
def constants(draw) -> Constant:
    kind = draw(st.sampled_from(ConstantKind))
    limit = {ConstantKind.BOOL: 16, ConstantKind.INT: 4, ConstantKind.FLOAT: 96}[kind]
    word = st.one_of(st.sampled_from([0, 1, 0x3F0000, 0x7F0000, 0x800000]), u32)
    words = draw(
        st.one_of(
            st.tuples(word, st.just(0), st.just(0), st.just(0)), st.tuples(word, word, word, word)
        )
    )
    return Constant(kind, draw(st.integers(0, limit - 1)), words)


outputs = st.builds(
    OutputEntry,
    st.one_of(st.integers(0, 10), u16),
    st.integers(0, 15),
    st.integers(0, 15),
    st.one_of(st.just(0), st.integers(0, 2**28 - 1)),
)
labels = st.builds(Label, u32, u32, names, u32)


@st.composite
def dvles(draw, code_words: int) -> Dvle:
    main = draw(st.integers(0, code_words))
    return Dvle(
        shader_type=draw(st.sampled_from(ShaderType)),
        main_offset=main,
        endmain_offset=draw(st.one_of(st.integers(main, code_words), st.integers(0, code_words))),
        constants=draw(st.lists(constants(), max_size=4)),
        outputs=draw(st.lists(outputs, max_size=4)),
        uniforms=draw(st.lists(uniforms(), max_size=4)),
        labels=draw(st.lists(labels, max_size=2)),
        input_mask=draw(st.one_of(st.just(0), u16)),
        output_mask=draw(st.one_of(st.just(0), u16)),
        merge_outmaps=draw(st.booleans()),
        geometry_mode=draw(st.sampled_from(GeometryMode)),
        fixed_vertex_start=draw(st.one_of(st.just(0), u8)),
        variable_vertex_count=draw(st.one_of(st.just(0), u8)),
        fixed_vertex_count=draw(st.one_of(st.just(0), u8)),
        version=draw(st.one_of(st.just(0x1002), u16)),
    )


def _word(rng: random.Random, n: int, descs: int) -> int:
    """Mostly decodable words: arithmetic with a valid descriptor, flow control with
    targets inside the program, END/NOP, or anything."""
    roll = rng.random()
    if roll < 0.1:
        return rng.getrandbits(32)
    if roll < 0.35:
        op = rng.choice([0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2C, 0x2D])
        return op << 26 | rng.getrandbits(4) << 22 | rng.randrange(n + 1) << 10 | rng.randrange(4)
    if roll < 0.5:
        return rng.choice([0x20, 0x21, 0x22, 0x2A, 0x2B]) << 26 | rng.getrandbits(3) << 22
    op = rng.choice([0x00, 0x01, 0x02, 0x08, 0x13, 0x0E])
    return op << 26 | rng.getrandbits(19) << 7 | rng.randrange(max(descs, 1))


@st.composite
def shbins(draw) -> Shbin:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(0, 24))
    descs = draw(st.integers(0, 6))
    opdescs = [
        rng.getrandbits(32) if rng.random() < 0.3 else rng.getrandbits(31) for _ in range(descs)
    ]
    code = [_word(rng, n, descs) for _ in range(n)]
    high = draw(st.one_of(st.just(()), st.lists(u32, min_size=descs, max_size=descs)))
    return Shbin(
        Program(code, opdescs),
        draw(st.lists(dvles(n), max_size=3)),
        dvlp_version=draw(st.one_of(st.just(0), u32)),
        opdesc_high=high,
    )


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shbins())
def test_every_accepted_shbin_round_trips(shbin):
    try:
        data = shbin.to_bytes()  # refuses what the reader would only accept with warnings
    except ShbinError:
        return
    Shbin.from_bytes(data, strict=True)
    assert round_trip(data) == data


# -- mutations of real assembled files -----------------------------------------------------

VERTEX = """\
.fvec mvp[4], light
.ivec loops
.bool flag
.in pos v0
.in nrm v1
.out outpos position
.out outclr color
.out - texcoord0 o2.xy
.constf half(0.5, 0.5, 0.5, 1.0)
.consti cnt(3, 0, 1, 0)
.setb b3 true
.proc helper
    mul r1, half, r1
.end
.proc main
    mov r0, pos
    dp4 outpos.x, mvp[0], r0
    dp4 outpos.y, mvp[1], r0
    dp4 outpos.z, mvp[2], r0
    dp4 outpos.w, mvp[3], r0
    ifu flag
        call helper
    .else
        mad r1, nrm, r1, light
    .end
    for cnt
        add r1, -half, r1
    .end
    mov outclr, r1
    mov o2.xy, r1.yx
    end
.end
"""
GEOMETRY = """\
.gsh point c80
.fvec gscale
.out gpos position
.out - dummy o1
.constf gone(1.0, 0.0, 0.0, 1.0)
.entry gmain
.proc gmain
    setemit 0, prim
    mov r0, gone
    mul gpos, gscale, r0
    emit
    end
.end
"""


def _samples() -> list[bytes]:
    return [
        assemble(VERTEX).to_bytes(),
        assemble([("v.pica", VERTEX), ("g.pica", GEOMETRY)]).to_bytes(),
    ]


def test_mutated_assembled_files_are_rejected_or_round_trip():
    rng = random.Random(20261121)
    accepted = 0
    for data in _samples():
        for _ in range(250):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 3)):
                pos = rng.randrange(len(mutated))
                if rng.random() < 0.5:
                    mutated[pos] ^= 1 << rng.randrange(8)
                else:
                    mutated[pos] = rng.getrandbits(8)
            mutated = bytes(mutated)
            try:
                parsed = Shbin.from_bytes(mutated, strict=True)
            except ShbinError:
                continue
            accepted += 1
            # the mutation may move a table (a changed offset): the contents then come back
            # in picasso's layout, which is the file itself when its layout was picasso's
            canonical = parsed.to_bytes()
            assert round_trip(mutated) == canonical, mutated.hex()
    assert accepted > 100  # most single-byte changes hit values, not structure
