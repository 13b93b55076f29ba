"""``a2xx disasm|run|info`` on XDK containers, Xenia dumps and raw microcode
(a2xx-formats.md): the type and byte order come from the file, damage is reported with
its byte offset and never as a traceback."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from a2xx_helpers import EXEC_END, NOP, cf_program, exec_clause
from container_helpers import WORDS, WORDS_HASH, build_container

from gpuisa.a2xx import disassemble
from gpuisa.a2xx.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    """A Xenia dump of WORDS as a pixel shader, with its disassembly text beside it."""
    path = tmp_path / f"shader_{WORDS_HASH:016X}.ucode.bin.frag"
    path.write_bytes(struct.pack("<15I", *WORDS))
    return path


def test_disasm_of_a_container_takes_its_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container(magic=0x102A1100))  # pixel
    code, out, _ = run_cli(capsys, "disasm", str(path), "--style", "xenia", "--no-constants")
    assert code == 0 and out == disassemble(list(WORDS), "fragment", style="xenia")


def test_disasm_of_a_xenia_dump_and_of_its_text(
    capsys: pytest.CaptureFixture[str], dump: Path
) -> None:
    expected = disassemble(list(WORDS), "fragment")
    assert run_cli(capsys, "disasm", str(dump))[:2] == (0, expected)
    text = dump.with_name(dump.name.replace(".bin", ""))
    text.write_text("/*    0.0 */       alloc colors\n")
    code, out, err = run_cli(capsys, "disasm", str(text))
    assert (code, out) == (0, expected)
    assert err == f"a2xx: note: {text}: reading the microcode from {dump}\n"


def test_xenia_text_alone_is_assembled(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = tmp_path / f"shader_{WORDS_HASH:016X}.ucode.vert"
    text.write_text(disassemble(list(WORDS), "vertex", style="xenia"))
    code, out, err = run_cli(capsys, "disasm", str(text))
    assert (code, out) == (0, disassemble(list(WORDS), "vertex"))
    assert f"a2xx: note: {text}: not in Xenia's text, filled in: vertex fetch" in err
    code, out, _ = run_cli(capsys, "info", str(text))
    assert f"  name hash:   {WORDS_HASH:016X} (matches)" in out.splitlines()
    binary = tmp_path / "out.bin"
    assert run_cli(capsys, "asm", str(text), "-o", str(binary))[0] == 0
    assert binary.read_bytes() == struct.pack("<15I", *WORDS)


def test_big_endian_raw_microcode_and_forced_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "cut.bin"
    path.write_bytes(struct.pack(">15I", *WORDS))
    assert run_cli(capsys, "disasm", str(path))[1] == disassemble(list(WORDS), "vertex")
    code, _, err = run_cli(capsys, "disasm", str(path), "--byte-order", "little")
    assert code == 1 and err.startswith(f"a2xx: error: {path}: ")


def test_info(capsys: pytest.CaptureFixture[str], tmp_path: Path, dump: Path) -> None:
    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container())
    code, out, _ = run_cli(capsys, "info", str(path))
    assert code == 0
    assert out == (
        f"{path}: XDK shader container\n"
        "  type:        vertex shader\n"
        "  microcode:   15 dwords, 5 slots, big-endian\n"
        f"  xenia hash:  {WORDS_HASH:016X} (Xenia's dump: shader_{WORDS_HASH:016X}.ucode.bin.*)\n"
        "  compiler:    Microsoft (R) HLSL Shader Compiler, profile xvs_3_0\n"
        "  constants:\n"
        "    fsize  c0        float4  vector float 1x4\n"
        "    mvp    c4-c7     float4  matrix_rows float 4x4\n"
    )
    code, out, _ = run_cli(capsys, "info", str(dump))
    assert out.splitlines()[0] == f"{dump}: Xenia shader dump"
    assert f"  name hash:   {WORDS_HASH:016X} (matches)" in out.splitlines()


def test_run_takes_the_type_from_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container())
    inputs = tmp_path / "in.json"
    inputs.write_text('{"count": 1, "buffers": {"12": [1.0, 2.0, 3.0]}}')
    code, out, err = run_cli(capsys, "run", str(path), "--inputs", str(inputs))
    # A vertex shader: it fetched the buffer bound to CONST(4, 0) and exported the position.
    assert (code, err) == (0, "")
    assert "0 position 1 2 3 1" in " ".join(out.split())
    raw = tmp_path / "raw.bin"
    raw.write_bytes(struct.pack("<15I", *WORDS))
    code, _, err = run_cli(capsys, "run", str(raw), "--count", "1")
    assert code == 1 and "give --type vs or fs" in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (build_container()[:20], "byte offset 0x0, header: needs 36 bytes"),
        (build_container(ctab_offset=0x10000), "byte offset 0x10004, constant table"),
        (struct.pack("<15I", *WORDS)[:-1], "byte offset 0x38, microcode: 59 bytes"),
    ],
)
def test_damaged_files_are_errors_with_offsets(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(data)
    for argv in (["disasm"], ["info"], ["run", "--type", "vs"]):
        code, out, err = run_cli(capsys, *argv, str(path))
        assert (code, out) == (1, "")
        assert err.startswith(f"a2xx: error: {path}: {message}")
        assert err.count("\n") == 1


@pytest.mark.parametrize(("style", "comment"), [("mesa", "; "), ("xenia", "// ")])
def test_disasm_lists_the_constant_table_and_still_reassembles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, style: str, comment: str
) -> None:
    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container())
    code, out, _ = run_cli(capsys, "disasm", str(path), "--style", style)
    assert code == 0
    # Mesa's text says whose fills the words have (an XDK container's: the XDK
    # compiler's); this container's words were made by gpuisa's Adreno defaults, which
    # --toolchain asks for instead.
    toolchain = ["; toolchain: xdk"] if style == "mesa" else []
    # Then the fields its fills do not give (test_a2xx_toolchains.py tests those lines).
    toolchain += [line for line in out.splitlines() if line.startswith("; xdk: ")]
    assert out.splitlines()[:3 + len(toolchain)] == [
        *toolchain,
        f"{comment}constant table (xvs_3_0):",
        f"{comment}fsize  c0        float4  vector float 1x4",
        f"{comment}mvp    c4-c7     float4  matrix_rows float 4x4",
    ]
    listing = tmp_path / "listing.txt"
    listing.write_text(out)
    binary = tmp_path / "again.bin"
    adreno = ["--toolchain", "adreno"] if style == "mesa" else []
    assert run_cli(capsys, "asm", str(listing), *adreno, "-o", str(binary))[0] == 0
    assert binary.read_bytes() == struct.pack("<15I", *WORDS)
    code, out, _ = run_cli(capsys, "disasm", str(path), "--style", style, "--no-constants")
    assert out == "".join(f"{line}\n" for line in toolchain) + disassemble(
        list(WORDS), "vertex", style=style)


def test_asm_syntax_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # test_a2xx_xna.MAD_MAXS in xenia-canary's text: b from lane 2 (z) beside a mad.
    from test_a2xx_xna import CLEAN, MAD_MAXS

    from gpuisa.a2xx.cli import main as cli

    words = [*cf_program([exec_clause(EXEC_END, 1, 1) | CLEAN, NOP]), *MAD_MAXS]
    source = tmp_path / "canary.txt"
    source.write_text(disassemble(words, "vertex", style="xenia-canary"))
    out = tmp_path / "out.bin"
    for syntax in ("auto", "xenia-canary"):
        assert cli(["asm", str(source), "--syntax", syntax, "-o", str(out)]) == 0
        assert out.read_bytes() == struct.pack(f"<{len(words)}I", *words)
    assert cli(["asm", str(source), "--syntax", "xenia", "-o", str(out)]) == 1
    assert "disagrees with the vector operation's source 3" in capsys.readouterr().err
    assert cli(["asm", str(source), "--syntax", "mesa", "-o", str(out)]) == 1
