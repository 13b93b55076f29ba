"""Fuzzing the reader with mutated files, and hypothesis round trips of random Shbins."""

from __future__ import annotations

import random
import struct

from hypothesis import given, settings
from hypothesis import strategies as st
from test_shbin_layouts import AEMSTRO, NIHSTRO, NINTENDO
from test_shbin_picasso import SAMPLE_A, SAMPLE_B

from gpuisa.errors import ShbinError
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

SEEDS = [SAMPLE_A, SAMPLE_B, NIHSTRO, AEMSTRO, NINTENDO, SAMPLE_A + b"\0"]
MUTATIONS = 12_000


def header_fields(data: bytes) -> list[int]:
    """Byte positions of every offset/count word in the DVLB, DVLP and DVLE headers."""
    count = struct.unpack_from("<I", data, 4)[0]
    dvlp = 8 + 4 * count
    fields = [4, *range(8, dvlp, 4), *range(dvlp + 8, dvlp + 0x1C, 4)]
    for offset in struct.unpack_from(f"<{count}I", data, 8):
        fields += range(offset + 0x08, offset + 0x40, 4)
    return fields


def mutate(rng: random.Random, data: bytes, fields: list[int]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.randrange(6)
        if kind == 0 and out:  # flip 1-4 bits
            for _ in range(rng.randint(1, 4)):
                out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        elif kind == 1 and out:  # overwrite one byte
            out[rng.randrange(len(out))] = rng.choice((0x00, 0xFF, rng.randrange(256)))
        elif kind == 2:  # truncate
            del out[rng.randrange(len(out) + 1) :]
        elif kind == 3:  # extend
            out += rng.randbytes(rng.randint(1, 64)) if rng.random() < 0.5 else bytes(8)
        else:  # a wild value in a header offset/count field
            pos = rng.choice(fields)
            if pos + 4 <= len(out):
                value = rng.choice(
                    (
                        0,
                        1,
                        4,
                        0xFFFFFFFF,
                        0x7FFFFFFF,
                        0x80000000,
                        len(out),
                        len(out) - 1,
                        len(out) + 4,
                        rng.getrandbits(32),
                        rng.randrange(len(out)),
                        rng.randrange(0x100) * 4,
                    )
                )
                struct.pack_into("<I", out, pos, value & 0xFFFFFFFF)
    return bytes(out)


def test_mutated_files_parse_or_raise_shbin_error():
    rng = random.Random(0x5B1)
    fields = [header_fields(seed) for seed in SEEDS]
    parsed = failed = 0
    for i in range(MUTATIONS):
        which = i % len(SEEDS)
        data = mutate(rng, SEEDS[which], fields[which])
        try:
            shbin = Shbin.from_bytes(data)
        except ShbinError:
            failed += 1
            continue
        except Exception as error:  # pragma: no cover - reported with the input
            raise AssertionError(
                f"mutation {i} of seed {which}: {error!r}\n{data.hex()}"
            ) from error
        parsed += 1
        # Whatever parses is reproduced exactly in place ...
        assert shbin.to_bytes(preserve_layout=True) == data, f"mutation {i}"
        # ... and either rewrites canonically to the same contents or is refused cleanly.
        try:
            canonical = shbin.to_bytes()
        except ShbinError:
            assert shbin.warnings, f"mutation {i}: canonical writer refused a clean file"
            continue
        assert Shbin.from_bytes(canonical) == shbin, f"mutation {i}"
    # Both outcomes must be common, or the mutations test nothing.
    assert parsed > MUTATIONS // 10 and failed > MUTATIONS // 10, (parsed, failed)


u8, u16, u32 = (st.integers(0, 2**bits - 1) for bits in (8, 16, 32))
names = st.text(st.characters(min_codepoint=1, max_codepoint=127), max_size=12)
constants = st.one_of(
    st.builds(
        Constant, st.just(ConstantKind.FLOAT), st.integers(0, 95), st.tuples(u32, u32, u32, u32)
    ),
    st.builds(
        Constant,
        st.just(ConstantKind.INT),
        st.integers(0, 3),
        st.tuples(u32, st.just(0), st.just(0), st.just(0)),
    ),
    st.builds(
        Constant,
        st.just(ConstantKind.BOOL),
        st.integers(0, 15),
        st.tuples(st.integers(0, 1), st.just(0), st.just(0), st.just(0)),
    ),
)
outputs = st.builds(
    OutputEntry, u16, st.integers(0, 15), st.integers(0, 15), st.integers(0, 2**28 - 1)
)
labels = st.builds(Label, u32, u32, names, u32)
# The uniform register space of shbin-format.md#dvle-uniforms.
BANKS = {"v": (0x00, 16), "c": (0x10, 96), "i": (0x70, 4), "b": (0x78, 16)}


@st.composite
def uniforms(draw) -> Uniform:
    base, size = BANKS[draw(st.sampled_from("vcib"))]
    first = draw(st.integers(0, size - 1))
    count = draw(st.integers(1, size - first))
    return Uniform(draw(names), base + first, base + first + count - 1)


@st.composite
def dvles(draw, code_words: int) -> Dvle:
    return Dvle(
        shader_type=draw(st.sampled_from(ShaderType)),
        main_offset=draw(st.integers(0, code_words)),
        endmain_offset=draw(st.integers(0, code_words)),
        constants=draw(st.lists(constants, max_size=4)),
        outputs=draw(st.lists(outputs, max_size=4)),
        uniforms=draw(st.lists(uniforms(), max_size=4)),
        labels=draw(st.lists(labels, max_size=3)),
        input_mask=draw(u16),
        output_mask=draw(u16),
        merge_outmaps=draw(st.booleans()),
        geometry_mode=draw(st.sampled_from(GeometryMode)),
        fixed_vertex_start=draw(u8),
        variable_vertex_count=draw(u8),
        fixed_vertex_count=draw(u8),
        version=draw(u16),
    )


@st.composite
def shbins(draw) -> Shbin:
    code = draw(st.lists(u32, max_size=16))
    opdescs = draw(st.lists(u32, max_size=6))
    high = draw(st.one_of(st.just(()), st.lists(u32, min_size=len(opdescs), max_size=len(opdescs))))
    return Shbin(
        Program(code, opdescs),
        draw(st.lists(dvles(len(code)), max_size=3)),
        dvlp_version=draw(u32),
        opdesc_high=high,
    )


@settings(max_examples=150, deadline=None)
@given(shbins())
def test_random_shbins_round_trip(shbin):
    data = shbin.to_bytes()
    assert len(data) % 4 == 0
    parsed = Shbin.from_bytes(data, strict=True)
    assert parsed == shbin
    assert parsed.to_bytes() == data
    assert parsed.to_bytes(preserve_layout=True) == data
