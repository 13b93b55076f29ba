"""Regression tests of issue 12: hostile input gives a GpuIsaError at once (no traceback,
hang or huge allocation), and -o writes through special files.  One test per item; the
numbered comments are the issue's items."""

from __future__ import annotations

import json
import os
import stat
import threading
import time

import numpy as np
import pytest

from gpuisa.a2xx import assemble as a2xx_assemble
from gpuisa.a2xx import run_vertex
from gpuisa.a2xx.cli import main as a2xx_main
from gpuisa.errors import GpuIsaError, InputError, SourceError
from gpuisa.numtext import saturating_int
from gpuisa.pica import assemble, run
from gpuisa.pica.asm.cnum import atoi, strtoll
from gpuisa.pica.cli import main as pica_main
from gpuisa.pica.disasm import disassemble

PASSTHROUGH = ".out opos position\n.proc main\n    mov opos, v0\n    end\n.end\n"
A2XX_VS = ("EXEC ADDR(0x2) CNT(0x1)\n"
           "   ALLOC POSITION SIZE(0x0)\n"
           "   EXEC_END ADDR(0x3) CNT(0x1)\n"
           "      ALU:	MAXv	export62 = R0, R0\n")


def _messages(error: SourceError) -> list[str]:
    return [d.message for d in error.diagnostics if d.severity == "error"]


# -- 1: -o writes through FIFOs and symlinks, and '-' is standard output ------------------


def test_pica_asm_writes_through_a_fifo(tmp_path):
    source = tmp_path / "s.pica"
    source.write_text(PASSTHROUGH)
    fifo = tmp_path / "out.shbin"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    assert pica_main(["asm", "-o", str(fifo), str(source)]) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert received == [assemble([(str(source), PASSTHROUGH)]).to_bytes()]


def test_pica_disasm_and_a2xx_asm_keep_a_symlink(tmp_path):
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble([("s.pica", PASSTHROUGH)]).to_bytes())
    real = tmp_path / "real.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert pica_main(["disasm", str(shbin), "-o", str(link)]) == 0
    assert link.is_symlink() and "mov o0, v0" in real.read_text()
    vs = tmp_path / "vs.txt"
    vs.write_text(A2XX_VS)
    assert a2xx_main(["asm", str(vs), "-o", str(link)]) == 0
    assert link.is_symlink()
    words = a2xx_assemble(A2XX_VS)
    assert real.read_bytes() == b"".join(w.to_bytes(4, "little") for w in words)


def test_pica_asm_to_standard_output(tmp_path, capfdbinary):
    source = tmp_path / "s.pica"
    source.write_text(PASSTHROUGH)
    assert pica_main(["asm", "-o", "-", str(source)]) == 0
    assert capfdbinary.readouterr().out == assemble([(str(source), PASSTHROUGH)]).to_bytes()


# -- 2: an array size is checked before the array is built --------------------------------


@pytest.mark.parametrize("size", ["99999999999", "10000000", "97"])
def test_huge_constant_arrays_fail_at_once(size):
    start = time.perf_counter()
    with pytest.raises(SourceError) as caught:
        assemble(f".constfa t[{size}]\n.end\n{PASSTHROUGH}")
    assert time.perf_counter() - start < 2
    assert _messages(caught.value) == ["not enough space for local constant array 't'"]


def test_the_largest_constant_array_still_fits():
    shbin = assemble(f".constfa t[96]\n.end\n{PASSTHROUGH}")
    assert len(shbin.entries[0].constants) == 96  # c0-c95, zero-filled


# -- 3: a scalar uniform is an InputError on every engine and precision -------------------


@pytest.mark.parametrize("engine", ["reference", "jit"])
@pytest.mark.parametrize("precision", ["f24", "f32"])
@pytest.mark.parametrize("value", [1.5, 2, np.float64(3.0)])
def test_scalar_uniform_is_an_input_error(engine, precision, value):
    shbin = assemble(".fvec projection\n.out opos position\n.proc main\n"
                     "    mov opos, projection\n    end\n.end\n")
    with pytest.raises(InputError, match=r"'projection' has shape \(\); expected 4 values"):
        run(shbin, {"v0": np.zeros((1, 4))}, uniforms={"projection": value},
            engine=engine, precision=precision)


def test_scalar_uniform_from_pica_run_json(tmp_path, capsys):
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(".fvec scale\n.out opos position\n.proc main\n"
                               "    mul opos, scale, v0\n    end\n.end\n").to_bytes())
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"v0": [[1, 2, 3, 4]]}))
    uniforms = tmp_path / "u.json"
    uniforms.write_text(json.dumps({"c0": 1.5}))
    assert pica_main(["run", str(shbin), "--inputs", str(inputs), "--uniforms",
                      str(uniforms)]) == 1
    assert "pica: error: uniform 'c0' has shape ()" in capsys.readouterr().err


# -- 4: an empty destination mask runs on the JIT -----------------------------------------


@pytest.mark.parametrize("lanes", [3, 70_000])  # the lane function, and vectors on threads
def test_empty_destination_mask_on_every_engine(lanes):
    # mov r15, v0 with operand descriptor 0 (mask empty): 0x4FE00000 by 3dbrew's format 1
    # layout (pica-isa.md#format-1) (opcode 0x13 << 26, dst 0x1F << 21, src1 v0 = 0), then end
    # (0x88000000).
    shbin = assemble(".opdesc 0x0\n.proc main\n.word 0x4FE00000\n    end\n.end\n")
    values = np.arange(4 * lanes, dtype=np.float32).reshape(lanes, 4)
    for engine in ("reference", "jit"):
        result = run(shbin, {"v0": values}, engine=engine, registers=True)
        assert not result.temporaries["r15"].any(), engine
        assert result.steps.tolist() == [2] * lanes, engine


# -- 6: integer literals of any length ----------------------------------------------------


def test_saturating_int_reads_only_what_matters():
    assert saturating_int("000123", 10, 1000) == 123
    assert saturating_int("1000", 10, 1000) == 1000
    assert saturating_int("1001", 10, 1000) == 1000
    assert saturating_int("9" * 100_000, 10, 1 << 63) == 1 << 63
    assert saturating_int("f" * 17, 16, 1 << 64) == 1 << 64
    assert saturating_int("0" * 5000, 8, 7) == 0


def test_c_number_parsers_saturate_like_glibc():
    # glibc strtoll saturates at LLONG_MAX / LLONG_MIN; atoi truncates that to int.
    digits = "9" * 5000
    assert strtoll(digits) == ((1 << 63) - 1, 5000)
    assert strtoll("-" + digits) == (-(1 << 63), 5001)
    assert atoi(digits) == (-1, 5000)  # 0x7FFF...FFFF truncated to 32 bits
    assert atoi("-" + digits) == (0, 5001)  # 0x8000...0000 truncated


@pytest.mark.parametrize("source", [
    ".fvec u[" + "9" * 5000 + "]\n",
    ".proc main\n    mov r0, c0[" + "9" * 5000 + "]\n    end\n.end\n",
    ".proc main\n    mov r0, c" + "9" * 5000 + "\n    end\n.end\n",
    ".consti n(" + "9" * 5000 + ", 0, 0, 0)\n",
    ".gsh point c" + "9" * 5000 + "\n",
])
def test_pica_asm_long_numbers_are_source_errors(source):
    start = time.perf_counter()
    with pytest.raises(SourceError):
        assemble(source)
    assert time.perf_counter() - start < 2


@pytest.mark.parametrize("text", [
    "EXEC ADDR(0x" + "9" * 5000 + ") CNT(0x1)\n",
    "   EXEC_END ADDR(0x2) CNT(0x1)\n      ALU:	MAXv	export62 = C" + "9" * 5000 + ", C0\n",
])
def test_a2xx_asm_long_numbers_are_source_errors(text):
    with pytest.raises(GpuIsaError, match=r"number too large: .*\(wider than 64 bits\)"):
        a2xx_assemble(text)


def test_gsh_register_out_of_range_shows_the_number_as_written():
    with pytest.raises(SourceError) as caught:
        assemble(".gsh point c99999999999\n" + PASSTHROUGH)
    assert _messages(caught.value) == ["Value out of range (0..255): 99999999999"]
    with pytest.raises(SourceError) as caught:
        assemble(".gsh point c99999999999\n" + PASSTHROUGH, strict=True)
    # picasso prints (int)99999999999 = 99999999999 mod 2^32 = 1215752191
    assert _messages(caught.value) == ["Value out of range (0..255): 1215752191"]


# -- 8: .fvec a,, b ------------------------------------------------------------------------


def test_empty_uniform_name_is_an_error_and_the_rest_are_declared():
    with pytest.raises(SourceError) as caught:
        assemble(".fvec a,, b\n.proc main\n    mov r0, b\n    end\n.end\n")
    assert _messages(caught.value) == ["empty uniform name (two commas in a row)"]


def test_empty_uniform_name_in_strict_mode_is_picassos_nameless_uniform():
    shbin = assemble(".fvec a,, b\n.proc main\n    mov r0, b\n    end\n.end\n", strict=True)
    uniforms = {u.name: u.first for u in shbin.entries[0].uniforms}
    # picasso: a = c0, the nameless one = c1, b = c2 (uniform registers start at 0x10)
    assert uniforms == {"a": 0x10, "": 0x11, "b": 0x12}


# -- 9: malformed run inputs and max_steps --------------------------------------------------


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.npy", b"", "empty file"),
    ("empty.npz", b"", "empty file"),
    ("deep.json", b"[" * 5000 + b"]" * 5000, "nested more than"),
    ("long.json", b'{"v0": [' + b"7" * 5000 + b"]}", "an integer of 5000 digits"),
])
def test_pica_run_malformed_inputs(tmp_path, capsys, name, content, message):
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(PASSTHROUGH).to_bytes())
    path = tmp_path / name
    path.write_bytes(content)
    assert pica_main(["run", str(shbin), "--inputs", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pica: error: {path}") and message in err


def test_pica_run_npy_header_claiming_10_to_11_rows(tmp_path, capsys):
    import io

    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        stream, {"descr": "<f4", "fortran_order": False, "shape": (99_999_999_999, 4)})
    path = tmp_path / "huge.npy"
    path.write_bytes(stream.getvalue() + b"\0" * 64)
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(PASSTHROUGH).to_bytes())
    assert pica_main(["run", str(shbin), "--inputs", str(path)]) == 1
    assert "more than the file holds" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ["reference", "jit"])
def test_huge_max_steps_means_no_practical_limit(engine):
    result = run(assemble(PASSTHROUGH), {"v0": np.ones((2, 4))}, engine=engine,
                 max_steps=2**70)
    assert result.outputs["o0"].tolist() == [[1, 1, 1, 1]] * 2


# -- 10: a2xx vertex counts are checked before allocating ---------------------------------


@pytest.mark.parametrize("count", ["99999999999999999999", "3000000000", "100000000"])
def test_a2xx_run_huge_counts_fail_before_allocating(tmp_path, capsys, count):
    program = tmp_path / "vs.txt"
    program.write_text(A2XX_VS)
    start = time.perf_counter()
    assert a2xx_main(["run", "--type", "vs", "--count", count, str(program)]) == 1
    assert time.perf_counter() - start < 5
    # refused as the option's error, before the program is read or anything allocated
    assert (capsys.readouterr().err
            == f"a2xx: error: --count: expected an integer from 0 to 16777216, got '{count}'\n")


def test_a2xx_run_vertex_at_the_limit_is_refused_only_above_it():
    words = a2xx_assemble(A2XX_VS)
    with pytest.raises(InputError, match="16,777,217 invocations"):
        run_vertex(words, (1 << 24) + 1)
    assert run_vertex(words, 3).exports  # small runs work


# -- smaller ones ------------------------------------------------------------------------


def test_a_byte_order_mark_is_not_source_text():
    plain = assemble(PASSTHROUGH).to_bytes()
    assert assemble("\ufeff" + PASSTHROUGH).to_bytes() == plain


def test_pica_asm_file_with_a_utf8_bom(tmp_path):
    source = tmp_path / "bom.pica"
    source.write_bytes(b"\xef\xbb\xbf" + PASSTHROUGH.encode())
    out = tmp_path / "bom.shbin"
    assert pica_main(["asm", "-o", str(out), str(source)]) == 0
    assert out.read_bytes() == assemble(PASSTHROUGH).to_bytes()


def test_setb_with_a_comma_as_in_public_shaders():
    with_comma = assemble(".setb b0, true\n.setb b3, off\n" + PASSTHROUGH)
    plain = assemble(".setb b0 true\n.setb b3 off\n" + PASSTHROUGH)
    assert with_comma.to_bytes() == plain.to_bytes()
    assert ".setb b0 true" in disassemble(with_comma)


def test_a_file_read_with_warnings_says_its_text_does_not_reassemble():
    import struct

    from gpuisa.pica.shbin import Shbin

    data = bytearray(assemble(PASSTHROUGH).to_bytes())
    dvle = struct.unpack_from("<I", data, 8)[0]  # DVLB: magic, count, DVLE offsets
    struct.pack_into("<I", data, dvle + 0x08, 0x100)  # DVLE main: past the 2-word code
    shbin = Shbin.from_bytes(bytes(data))
    assert shbin.warnings
    text = disassemble(shbin)
    assert "; reader warning:" in text
    assert "does not reassemble to the identical file" in text
