"""The ``a2xx`` command line: disasm, asm and run; error reporting and atomic output."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuisa.a2xx import assemble, disassemble
from gpuisa.a2xx.cli import main
from gpuisa.a2xx.engine.files import load_inputs

SOURCE = """\
ALLOC POSITION SIZE(0x0)
EXEC
  FETCH: VERTEX R1.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(4, 0)
  ALU: MAXv export62 = R1, R1
ALLOC PARAM/PIXEL SIZE(0x0)
EXEC_END
  ALU: MULv export0 = R1, C3
"""
WORDS = assemble(SOURCE)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "asm": tmp_path / "prog.asm",
        "bin": tmp_path / "prog.bin",
        "hex": tmp_path / "prog.hex",
    }
    paths["asm"].write_text(SOURCE)
    paths["bin"].write_bytes(struct.pack(f"<{len(WORDS)}I", *WORDS))
    paths["hex"].write_text(
        "# three words per slot\n" + "\n".join(f"0x{w:08X}," for w in WORDS) + "\n"
    )
    return paths


# -- disasm ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["bin", "hex"])
def test_disasm_binary_and_hex(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], kind: str
) -> None:
    code, out, err = run_cli(capsys, "disasm", str(files[kind]))
    assert (code, err) == (0, "")
    assert out == disassemble(WORDS, "vertex")


def test_disasm_options(capsys: pytest.CaptureFixture[str], files: dict[str, Path]) -> None:
    path = str(files["bin"])
    assert run_cli(capsys, "disasm", path, "--raw")[1] == disassemble(WORDS, "vertex", raw=True)
    assert run_cli(capsys, "disasm", path, "--style", "xna", "--type", "fs")[1] == disassemble(
        WORDS, "fragment", style="xna"
    )
    out_file = files["bin"].with_suffix(".txt")
    assert run_cli(capsys, "disasm", path, "-o", str(out_file))[:2] == (0, "")
    assert out_file.read_text() == disassemble(WORDS, "vertex")


def test_disasm_forced_binary_reading_of_text(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path]
) -> None:
    code, _, err = run_cli(capsys, "disasm", str(files["hex"]), "--input-format", "bin")
    assert code == 1
    assert err.startswith(f"a2xx: error: {files['hex']}: ")


# -- asm ------------------------------------------------------------------------------------


def test_asm_binary_and_hex(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.bin"
    assert run_cli(capsys, "asm", str(files["asm"]), "-o", str(out)) == (0, "", "")
    assert list(struct.unpack(f"<{len(WORDS)}I", out.read_bytes())) == WORDS
    code, text, _ = run_cli(capsys, "asm", str(files["asm"]), "--hex")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == " ".join(f"{w:08x}" for w in WORDS[:3])
    assert [int(t, 16) for line in lines for t in line.split()] == WORDS


def test_asm_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "w.asm"
    src.write_text("EXEC_END ADDR(0x1) CNT(0x2)\n  ALU: MAXv R1 = R0, R0\n")
    out = tmp_path / "w.bin"
    code, _, err = run_cli(capsys, "asm", str(src), "-o", str(out))
    assert code == 0 and out.exists()
    assert err.startswith(f"a2xx: warning: {src}:1:")
    out.unlink()
    code, _, err = run_cli(capsys, "asm", str(src), "-o", str(out), "--Werror")
    assert code == 1 and not out.exists()


def test_asm_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "bad.asm"
    src.write_text("EXEC_END\n  ALU: FOOv R0 = R1, R1\n")
    out = tmp_path / "bad.bin"
    code, stdout, err = run_cli(capsys, "asm", str(src), "-o", str(out))
    assert (code, stdout) == (1, "")
    assert err.splitlines()[0] == f"a2xx: error: {src}:2:8: unknown vector opcode 'FOOv'"
    assert "Traceback" not in err
    assert not out.exists()
    code, _, err = run_cli(capsys, "asm", str(src))
    assert code == 1 and "give -o OUT" in err


# -- run ------------------------------------------------------------------------------------


def _vs_inputs(tmp_path: Path) -> tuple[Path, Path, np.ndarray]:
    xyz = np.arange(9, dtype=np.float32).reshape(3, 3) * 0.5
    inputs = tmp_path / "in.json"
    inputs.write_text(
        json.dumps(
            {
                "count": 3,
                "buffers": {"vb": {"dtype": "float32", "data": xyz.tolist()}},
            }
        )
    )
    constants = tmp_path / "c.json"
    constants.write_text(
        json.dumps(
            {
                "float": {"C3": [2, 3, 4, "inf"]},
                "fetch": {"12": {"buffer": "vb"}},
            }
        )
    )
    return inputs, constants, xyz


def test_run_vertex_table_json_npz(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    inputs, constants, xyz = _vs_inputs(tmp_path)
    position = np.concatenate([xyz, np.ones((3, 1))], axis=1)
    param = position * np.array([2, 3, 4, np.inf])
    for kind in ("asm", "bin", "hex"):
        argv = [
            "run",
            str(files[kind]),
            "--type",
            "vs",
            "--inputs",
            str(inputs),
            "--constants",
            str(constants),
        ]
        code, out, err = run_cli(capsys, *argv)
        assert (code, err) == (0, "")
        rows = [line.split() for line in out.splitlines()]
        assert rows[0] == ["vertex", "export", "x", "y", "z", "w"]
        assert rows[1] == ["0", "param0", "0", "1.5", "4", "inf"]  # (0, .5, 1, 1) * C3
        assert rows[2][:2] == ["0", "position"]
        assert [float(v) for v in rows[6][2:]] == position[2].tolist()

    code, out, _ = run_cli(
        capsys,
        "run",
        str(files["bin"]),
        "--type",
        "vs",
        "--inputs",
        str(inputs),
        "--constants",
        str(constants),
        "--format",
        "json",
    )
    data = json.loads(out)
    assert data["type"] == "vertex" and data["count"] == 3
    assert data["position"] == position.tolist()
    assert data["param0"][1][3] == "inf"
    assert data["killed"] == [False] * 3
    assert data["allocs"][0] == {"cf_index": 0, "buffer": "POSITION", "size": 0}

    npz = tmp_path / "out.npz"
    code, out, _ = run_cli(
        capsys,
        "run",
        str(files["bin"]),
        "--type",
        "vs",
        "--inputs",
        str(inputs),
        "--constants",
        str(constants),
        "--format",
        "npz",
        "-o",
        str(npz),
    )
    assert (code, out) == (0, "")
    with np.load(npz) as archive:
        np.testing.assert_array_equal(archive["position"], position)
        np.testing.assert_array_equal(archive["param0"], param)


def test_run_vertex_npz_inputs_and_count(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    xyz = np.arange(12, dtype=np.float32).reshape(4, 3)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{"12": xyz})  # buffer key 12: bound to fetch slot 12 = CONST(4, 0)
    code, out, err = run_cli(
        capsys,
        "run",
        str(files["bin"]),
        "--type",
        "vs",
        "--inputs",
        str(inputs),
        "--count",
        "2",
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["position"] == [[0, 1, 2, 1], [3, 4, 5, 1]]


def test_npz_arrays_named_like_semantics_are_buffers_of_raw_microcode(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    # The program has no vertex elements: POSITION is a vertex buffer, bound to fetch slot
    # 12 (CONST(4, 0)) by the constants file; a0 FMT_32_32_32_FLOAT with w = 1.
    xyz = np.arange(12, dtype=np.float32).reshape(4, 3)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, POSITION=xyz)
    assert set(load_inputs(str(inputs))["vertex_buffers"]) == {"POSITION"}
    assert set(load_inputs(str(inputs), vertex_elements=True)["attributes"]) == {"POSITION"}
    constants = tmp_path / "c.json"
    constants.write_text(json.dumps({"fetch": {"12": "POSITION"}}))
    code, out, err = run_cli(capsys, "run", str(files["bin"]), "--type", "vs", "--inputs",
                             str(inputs), "--constants", str(constants), "--count", "2",
                             "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["position"] == [[0, 1, 2, 1], [3, 4, 5, 1]]


def test_run_fragment_from_npy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "fs.asm"
    src.write_text("EXEC_END\n  ALU: KILLGTv R3.____ = R0, C0\n  ALU: MULv export0 = R0, R1\n")
    frag = np.random.default_rng(0).uniform(-1, 1, (5, 2, 4)).astype(np.float32)
    interp = tmp_path / "frag.npy"
    np.save(interp, frag)
    code, out, err = run_cli(
        capsys, "run", str(src), "--type", "fs", "--inputs", str(interp), "--format", "json"
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["killed"] == (frag[:, 0] > 0).any(axis=1).tolist()
    np.testing.assert_array_equal(data["color0"], frag[:, 0] * frag[:, 1])
    code, _, err = run_cli(capsys, "run", str(src), "--type", "fs")
    assert code == 1 and "needs --inputs" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("00000000 0000zz00\n", ":1:10: '0000zz00' is not a 32-bit hex word"),
        ("1 2 3 4\n", "program is 4 dwords, not a whole number of 96-bit slots"),
        ("# nothing\n", "no words in the file"),
    ],
)
def test_bad_program_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "p.hex"
    path.write_text(content)
    code, out, err = run_cli(capsys, "disasm", str(path))
    assert (code, out) == (1, "")
    assert err.startswith(f"a2xx: error: {path}")
    assert message in err and "Traceback" not in err


def test_run_errors_and_no_output_written(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "result.json"
    # no vertex buffer bound: the fetch fails at run time
    code, _, err = run_cli(
        capsys, "run", str(files["bin"]), "--type", "vs", "--count", "2", "-o", str(out)
    )
    assert code == 1 and not out.exists()
    assert "no vertex buffer is bound" in err
    # a jump out of the CF program
    bad = tmp_path / "jump.asm"
    bad.write_text("COND_JMP ADDR(5) DIR(1) FORCE_CALL\nEXEC_END\n  ALU: MAXv R1 = R0, R0\n")
    code, _, err = run_cli(capsys, "run", str(bad), "--type", "vs", "--count", "1")
    assert code == 1
    assert err.startswith(f"a2xx: error: {bad}: CF clause 0 (COND_JMP ADDR(0x5))")
    # bad JSON inputs name the inputs file
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    code, _, err = run_cli(
        capsys, "run", str(files["bin"]), "--type", "vs", "--inputs", str(broken)
    )
    assert code == 1 and err.startswith(f"a2xx: error: {broken}: invalid JSON")
    unknown = tmp_path / "c.json"
    unknown.write_text('{"floats": []}')
    code, _, err = run_cli(
        capsys,
        "run",
        str(files["bin"]),
        "--type",
        "vs",
        "--count",
        "1",
        "--constants",
        str(unknown),
    )
    assert code == 1 and "unknown key 'floats'" in err
    code, _, err = run_cli(
        capsys, "run", str(files["bin"]), "--type", "vs", "--count", "1", "--format", "npz"
    )
    assert code == 1 and "give -o OUT" in err
    missing = tmp_path / "missing.bin"
    code, _, err = run_cli(capsys, "disasm", str(missing))
    assert code == 1 and err.startswith(f"a2xx: error: {missing}: cannot read")


def test_run_target_switches(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "s.asm"
    src.write_text("EXEC_END\n  ALU: MAXv export0.____ = R0, R0\n       SUBs export0.x___ = R1\n")
    inputs = tmp_path / "r.json"
    inputs.write_text(json.dumps({"registers": {"R1": [[1, 20, 300, 4000]]}}))
    base = ["run", str(src), "--type", "vs", "--inputs", str(inputs), "--format", "json"]
    assert json.loads(run_cli(capsys, *base)[1])["param0"][0][0] == 3700
    x_lane = json.loads(run_cli(capsys, *base, "--scalar-lane", "x")[1])
    assert x_lane["param0"][0][0] == 3999


def test_python_dash_m(files: dict[str, Path]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gpuisa.a2xx", "disasm", str(files["hex"])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout == disassemble(WORDS, "vertex")
    proc = subprocess.run(
        [sys.executable, "-m", "gpuisa.a2xx", "disasm", str(files["asm"])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"a2xx: error: {files['asm']}:1:1: 'ALLOC' is not")


def test_a_count_above_the_limit_names_the_option(
    capsys: pytest.CaptureFixture[str], files: dict[str, Path], tmp_path: Path
) -> None:
    """--count beyond the 2^24 invocations a run takes at once is refused as the option's
    error, before anything is read or allocated."""
    inputs, constants, _ = _vs_inputs(tmp_path)
    code, out, err = run_cli(capsys, "run", str(files["bin"]), "--type", "vs", "--inputs",
                             str(inputs), "--constants", str(constants), "--count",
                             str((1 << 24) + 1))
    assert code == 1 and out == ""
    assert err.startswith("a2xx: error: --count: expected an integer") and "16777216" in err
