"""Disassembler behaviour beyond one instruction's text (whose (words, descriptors, text)
rows are in test_syntax_table.py): declarations from the DVLE tables, raw mode, words
printed raw, a pinned descriptor table, several units, the command line.

Instruction words are written as shift expressions of 3dbrew's bit tables (pica-isa.md#formats); the
expected text follows the picasso syntax of pica-assembly.md plus docs/assembly-extensions.md.
"""

import subprocess
import sys
import textwrap

import pytest
from test_syntax_table import WHOLE_PROGRAM

from gpuisa.pica.disasm import disassemble
from gpuisa.pica.program import Program
from gpuisa.pica.shbin import Constant, Dvle, OutputEntry, Shbin, Uniform

XYZW = 0x1B  # identity selector

# opdesc: mask 0-3 (x = bit 3), neg1 4, sel1 5-12, neg2 13, sel2 14-21, neg3 22, sel3 23-30
FULL = 0xF | XYZW << 5 | XYZW << 14


def _shbin(code, opdescs, **dvle):
    dvle.setdefault("main_offset", 0)
    dvle.setdefault("endmain_offset", len(code))
    return Shbin(Program(code, opdescs), (Dvle(**dvle),))


def _body(text):
    """The text without the banner comment lines."""
    return "\n".join(line for line in text.splitlines() if not line.startswith("; ")) + "\n"


def test_transform_shader_with_declarations():
    opdescs = [
        0b1110 | XYZW << 5,  # 0: mov r0.xyz, inpos
        0b0001 | 0x55 << 5,  # 1: mov r0.w, c95.yyyy
        0b1000 | XYZW << 5 | XYZW << 14,  # 2: dp4 .x
        0b0100 | XYZW << 5 | XYZW << 14,  # 3: dp4 .y
        0b0010 | XYZW << 5 | XYZW << 14,  # 4: dp4 .z
        0b0001 | XYZW << 5 | XYZW << 14 | 1 << 13,  # 5: dp4 .w, src2 negated
    ]
    code = [
        0x13 << 26 | 0x10 << 21 | 0x00 << 12 | 0,  # mov r0.xyz, v0
        0x13 << 26 | 0x10 << 21 | 0x7F << 12 | 1,  # mov r0.w, c95.y
        0x02 << 26 | 0x00 << 21 | 0x20 << 12 | 0x10 << 7 | 2,  # dp4 o0.x, c0, r0
        0x02 << 26 | 0x00 << 21 | 0x21 << 12 | 0x10 << 7 | 3,
        0x02 << 26 | 0x00 << 21 | 2 << 19 | 0x22 << 12 | 0x10 << 7 | 4,  # c2[a0.y]
        0x02 << 26 | 0x00 << 21 | 0x23 << 12 | 0x10 << 7 | 5,
        0x13 << 26 | 0x01 << 21 | 0x01 << 12 | 0,  # mov o1.xyz, v1
        0x22 << 26,  # end
    ]
    shbin = _shbin(
        code,
        opdescs,
        constants=(Constant(2, 95, (0x000000, 0x3F0000, 0xBF0000, 0x3E0000)),),
        outputs=(OutputEntry(0, 0, 0xF), OutputEntry(3, 1, 0x3)),
        # sorted by first register, as picasso writes them (shbin-format.md#dvle-uniforms)
        uniforms=(
            Uniform("inpos", 0x00, 0x00),
            Uniform("in.tc", 0x01, 0x01),
            Uniform("projection", 0x10, 0x13),
        ),
        input_mask=3,
        output_mask=3,
    )
    assert _body(disassemble(shbin)) == textwrap.dedent(
        """\

        .in inpos v0
        .in in$tc v1
        .fvec projection[4] c0
        .out - position o0
        .out - texcoord0 o1.xy
        .setf c95(0.0, 1.0, -1.0, 0.5)

        .proc main
            mov r0.xyz, inpos
            mov r0.w, c95.y
            dp4 o0.x, projection[0], r0
            dp4 o0.y, projection[1], r0
            dp4 o0.z, projection[a0.y+2], r0
            dp4 o0.w, projection[3], -r0
            mov o1.xyz, in$tc
            end
        .end
        """
    )


def _whole_program() -> Shbin:
    """The syntax row of a whole program (blocks, a procedure, a label), entry at word 1."""
    words, descriptors, _ = WHOLE_PROGRAM
    return _shbin(list(words), list(descriptors), main_offset=1, endmain_offset=10)


def test_raw_mode_annotates_every_code_line():
    text = disassemble(_whole_program(), raw=True)
    assert "    add r0, r0, r1                       ; [000] 02010880 d0" in text
    assert "        call proc_000                    ; [005] 90000001" in text
    assert "    .end                                 ; [006] 84000000 padding NOP" in text


def test_words_picasso_cannot_write_are_printed_raw():
    code = [
        0x10 << 26 | 0x123,  # unknown opcode 0x10
        0x2E << 26 | 6 << 24 | 0x10 << 12 | 0x11 << 7,  # cmp with operator 6 (x)
        0x21 << 26 | 1,  # nop with an unused bit set
        0x22 << 26,
    ]
    text = disassemble(_shbin(code, [FULL]))
    assert ".word 0x40000123  ; unknown opcode 0x10" in text
    assert ".word 0xBE010880  ; cmp desc=0x0 src2=0x11 src1=0x10 idx=0x0 cmpy=0x0 cmpx=0x6" in text
    assert ".word 0x84000001  ; nop unused-bits=0x1" in text


def test_descriptor_table_is_pinned_when_first_fit_would_differ():
    # Two equal descriptors; the second instruction uses entry 1, which picasso's
    # first-fit allocation would never pick.
    code = [
        0x13 << 26 | 0x10 << 21 | 0x11 << 12 | 0,  # mov r0, r1 (d0)
        0x13 << 26 | 0x10 << 21 | 0x12 << 12 | 1,  # mov r0, r2 (d1)
        0x22 << 26,
    ]
    text = disassemble(_shbin(code, [FULL, FULL]))
    assert ".opdesc 0x0006C36F, 0x0006C36F" in text
    assert "    mov r0, r1\n" in text
    assert ".word 0x4E012001  ; mov desc=0x1 src1=0x12 idx=0x0 dst=0x10" in text


def test_geometry_shader_and_several_dvles_become_units():
    code = [
        0x13 << 26 | 0x00 << 21 | 0x00 << 12,  # 0 vs: mov o0, v0
        0x22 << 26,  # 1 end
        0x2B << 26 | 1 << 23 | 2 << 24,  # 2 gs: setemit 2, prim
        0x2A << 26,  # 3 emit
        0x22 << 26,  # 4 end
    ]
    vs = Dvle(main_offset=0, endmain_offset=2, outputs=(OutputEntry(0, 0, 0xF),), output_mask=1)
    gs = Dvle(
        shader_type=1,
        main_offset=2,
        endmain_offset=5,
        geometry_mode=2,
        fixed_vertex_start=4,
        fixed_vertex_count=3,
        uniforms=(Uniform("gsdata", 0x10 + 40, 0x10 + 41),),
        outputs=(OutputEntry(9, 0, 0xF),),
        output_mask=1,
        merge_outmaps=True,
    )
    text = disassemble(Shbin(Program(code, [0xF | XYZW << 5]), (vs, gs)))
    assert _body(text) == textwrap.dedent(
        """\

        .out - position o0

        .proc main
            mov o0, v0
            end
        .end

        .unit dvle1

        .gsh fixed c40 c4 3
        .fvec gsdata[2] c40
        .out - dummy o0
        .entry main1

        .proc main1
            setemit 2, prim
            emit
            end
        .end
        """
    )


def test_cli_disasm_writes_the_file_and_reports_errors(tmp_path):
    shbin_path = tmp_path / "t.shbin"
    shbin_path.write_bytes(_whole_program().to_bytes())
    out = tmp_path / "t.pica"
    run = [sys.executable, "-m", "gpuisa", "disasm", str(shbin_path), "-o", str(out)]
    assert subprocess.run(run, capture_output=True).returncode == 0
    assert "call proc_000" in out.read_text()

    bad = tmp_path / "bad.shbin"
    bad.write_bytes(b"DVLB\x01\x00")
    result = subprocess.run(
        [sys.executable, "-m", "gpuisa", "disasm", str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"pica: error: {bad}: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("source", [b"", b"DVLB"])
def test_truncated_bytes_raise_gpuisa_errors(source):
    from gpuisa.errors import GpuIsaError

    with pytest.raises(GpuIsaError):
        disassemble(source)
