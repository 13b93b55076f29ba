"""``pica run`` and ``pica trace`` end to end, through gpuisa.pica.cli.main."""

import json

import numpy as np
import pytest
from engine_kit import Asm

from gpuisa.pica import cli
from gpuisa.pica.shbin import Dvle, OutputEntry, OutputSemantic, ShaderType, Shbin, Uniform

VERTICES = [[1, 2, 3, 4], [5, 6, 7, 8]]


@pytest.fixture
def pica(monkeypatch, capsys):
    """Run ``pica ARGS``; returns (exit status, stdout, stderr)."""
    if "run" not in cli._COMMAND_MODULES:
        monkeypatch.setattr(cli, "_COMMAND_MODULES", (*cli._COMMAND_MODULES, "run"))

    def call(*argv):
        status = cli.main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return status, out, err

    return call


@pytest.fixture
def shbin_file(tmp_path):
    """o0 = v0 * scale (position), o1 = v0 (color); a vertex DVLE."""
    a = Asm()
    a.op("mul", "o0", "c3", "v0")
    a.op("mov", "o1", "v0")
    a.end()
    dvle = Dvle(ShaderType.VERTEX, 0, 3,
                outputs=(OutputEntry(OutputSemantic.POSITION, 0),
                         OutputEntry(OutputSemantic.COLOR, 1, mask=0b0011)),
                uniforms=(Uniform.in_bank("pos", "v", 0), Uniform.in_bank("scale", "c", 3)))
    path = tmp_path / "shader.shbin"
    path.write_bytes(Shbin(a.program(), (dvle,)).to_bytes())
    return path


@pytest.fixture
def uniforms_file(tmp_path):
    path = tmp_path / "uniforms.json"
    path.write_text(json.dumps({"scale": [2, 0.5, "inf", -1]}))
    return path


def write_inputs(tmp_path, kind):
    path = tmp_path / f"inputs.{kind}"
    if kind == "json":
        path.write_text(json.dumps({"pos": VERTICES}))
    elif kind == "npy":
        np.save(path, np.array(VERTICES, dtype=float))
    elif kind == "npz":
        np.savez(path, v0=np.array(VERTICES, dtype=float))
    else:
        path.write_text("pos.x,pos.y,pos.z,pos.w\n1,2,3,4\n5,6,7,8\n")
    return path


EXPECTED = [[2, 1, np.inf, -4], [10, 3, np.inf, -8]]


@pytest.mark.parametrize("kind", ["json", "npy", "npz", "csv"])
def test_run_json_output_from_each_input_format(pica, tmp_path, shbin_file, uniforms_file,
                                                 kind):
    status, out, err = pica("run", shbin_file, "--inputs", write_inputs(tmp_path, kind),
                            "--uniforms", uniforms_file, "--format", "json")
    assert status == 0, err
    data = json.loads(out)
    o0 = [[float(x) for x in row] for row in data["outputs"]["o0"]]
    assert o0 == EXPECTED
    assert data["outputs_by_semantic"]["color"] == [[1, 2, 1, 1], [5, 6, 1, 1]]
    assert data["precision"] == "f24"
    assert "steps" not in data and "temporaries" not in data  # only with --registers


def test_run_table(pica, tmp_path, shbin_file, uniforms_file):
    status, out, _ = pica("run", shbin_file, "--inputs", write_inputs(tmp_path, "json"),
                          "--uniforms", uniforms_file)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["vertex", "register", "semantic", "x", "y", "z", "w"]
    assert lines[1].split() == ["0", "o0", "position", "2", "1", "inf", "-4"]
    assert lines[2].split() == ["0", "o1", "color.xy", "1", "2", "3", "4"]
    assert lines[3].split() == ["1", "o0", "position", "10", "3", "inf", "-8"]


def test_run_npz_output(pica, tmp_path, shbin_file, uniforms_file):
    out = tmp_path / "result.npz"
    status, _, err = pica("run", shbin_file, "--inputs", write_inputs(tmp_path, "npy"),
                          "--uniforms", uniforms_file, "--format", "npz", "-o", out)
    assert status == 0, err
    with np.load(out) as data:
        assert data["outputs/o0"].tolist() == EXPECTED
        assert "address" not in data and "steps" not in data  # only with --registers
    status, _, err = pica("run", shbin_file, "--inputs", write_inputs(tmp_path, "npy"),
                          "--format", "npz")
    assert status == 1 and "give -o" in err


def test_run_assembly_source(pica, tmp_path):
    source = tmp_path / "shader.v.pica"
    source.write_text(".fvec scale\n.out opos position\n.proc main\n"
                      "    mul opos, scale, v0\n    end\n.end\n")
    uniforms = tmp_path / "u.json"
    uniforms.write_text(json.dumps({"scale": [3, 3, 3, 3], "b1": True}))
    status, out, err = pica("run", source, "--inputs", write_inputs(tmp_path, "npy"),
                            "--uniforms", uniforms, "--format", "json", "--precision", "f32")
    assert status == 0, err
    assert json.loads(out)["outputs_by_semantic"]["position"] == [[3, 6, 9, 12],
                                                                  [15, 18, 21, 24]]


def test_errors_exit_1_and_write_nothing(pica, tmp_path, shbin_file):
    out = tmp_path / "out.json"
    status, _, err = pica("run", shbin_file, "--inputs", write_inputs(tmp_path, "json"),
                          "--format", "json", "-o", out)
    assert status == 1
    assert err.startswith("pica: error:") and "(c3) is read" in err  # named: 'scale' (c3)
    assert not out.exists()
    bad = tmp_path / "bad.csv"
    bad.write_text("v0.x,v0.y,v0.z,v0.w\n1,2,3,oops\n")
    status, _, err = pica("run", shbin_file, "--inputs", bad)
    assert status == 1 and "bad.csv:2" in err
    bad.write_text("v0.x,v0.y,v0.z\n1,2,3\n")
    status, _, err = pica("run", shbin_file, "--inputs", bad)
    assert status == 1 and "no column v0.w" in err
    status, _, err = pica("run", shbin_file, "--inputs", tmp_path / "missing.json")
    assert status == 1 and "missing.json" in err
    odd = tmp_path / "inputs.txt"
    odd.write_text("1 2 3 4")
    status, _, err = pica("run", shbin_file, "--inputs", odd)
    assert status == 1 and "unknown input file type" in err


def test_trace_prints_each_instruction(pica, tmp_path):
    a = Asm()
    a.flow("loop", dst=1, id=0)  # 0
    a.op("add", "r0.x", "c0", "r0")  # 1
    a.op("mov", "o0", "r0")  # 2
    a.end()  # 3
    shbin = Shbin(a.program(), (Dvle(ShaderType.VERTEX, 0, 4),))
    path = tmp_path / "loop.shbin"
    path.write_bytes(shbin.to_bytes())
    uniforms = tmp_path / "u.json"
    uniforms.write_text(json.dumps({"c0": [1, 1, 1, 1], "i0": [1, 5, 2, 0]}))
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"v0": [0, 0, 0, 0]}))
    status, out, err = pica("trace", path, "--inputs", inputs, "--uniforms", uniforms)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["step", "pc", "word", "instruction"]
    assert "loop i0, 0x001" in lines[1] and "LOOP 002>001 n=1 +2" in lines[1]
    assert "aL=5" in lines[1]
    assert "add r0.x" in lines[2] and "r0.x=1" in lines[2] and "aL=7" in lines[2]
    assert "r0.x=2" in lines[3] and "aL=9" in lines[3]
    assert "o0.x=2" in lines[4]  # only the components that changed
    assert lines[5].split()[3] == "end"
    assert len(lines) == 6


def test_trace_of_a_hang_shows_the_steps_then_the_error(pica, tmp_path):
    a = Asm()
    a.nop()
    a.flow("break")
    shbin = Shbin(a.program(), (Dvle(ShaderType.VERTEX, 0, 2),))
    path = tmp_path / "hang.shbin"
    path.write_bytes(shbin.to_bytes())
    inputs = tmp_path / "in.json"
    inputs.write_text("{}")
    status, out, err = pica("trace", path, "--inputs", inputs)
    assert status == 1
    assert "nop" in out
    assert "BREAK with an empty LOOP stack" in err


def test_registers_are_written_on_request(pica, tmp_path, shbin_file, uniforms_file):
    inputs = write_inputs(tmp_path, "npy")
    status, out, err = pica("run", shbin_file, "--inputs", inputs, "--uniforms",
                            uniforms_file, "--format", "json", "--registers")
    assert status == 0, err
    data = json.loads(out)
    assert data["steps"] == [3, 3]  # mul, mov, end
    assert data["cmp"] == [[False, False]] * 2 and data["address"] == [[0, 0, 0]] * 2
    npz = tmp_path / "r.npz"
    status, _, err = pica("run", shbin_file, "--inputs", inputs, "--uniforms",
                          uniforms_file, "--format", "npz", "--registers", "-o", npz)
    assert status == 0, err
    with np.load(npz) as arrays:
        assert arrays["steps"].tolist() == [3, 3]
        assert arrays["address"].shape == (2, 3)


def test_npz_to_standard_output(tmp_path, shbin_file, uniforms_file):
    import io
    import subprocess
    import sys

    inputs = write_inputs(tmp_path, "npy")
    done = subprocess.run(
        [sys.executable, "-m", "gpuisa", "pica", "run", str(shbin_file), "--inputs",
         str(inputs), "--uniforms", str(uniforms_file), "--format", "npz", "-o", "-"],
        capture_output=True, timeout=120, check=False)
    if done.returncode and b"usage" in done.stderr:  # no 'python -m gpuisa pica' entry
        done = subprocess.run(
            [sys.executable, "-c", "import sys; from gpuisa.pica.cli import main; "
             "sys.exit(main(sys.argv[1:]))", "run", str(shbin_file), "--inputs",
             str(inputs), "--uniforms", str(uniforms_file), "--format", "npz", "-o", "-"],
            capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    with np.load(io.BytesIO(done.stdout)) as arrays:
        assert arrays["outputs/o0"].tolist() == EXPECTED


def test_large_outputs_are_written_in_pieces(pica, tmp_path, shbin_file, monkeypatch):
    """JSON and table text is produced a block of rows at a time; pieces join into the
    same document.  Expected values: o0 = v0 * (2, 0.5, inf, -1) by hand."""
    from gpuisa.pica.cli import run as cli_run
    from gpuisa.pica.cli import table

    monkeypatch.setattr(cli_run, "ROWS_PER_CHUNK", 3)
    monkeypatch.setattr(table, "ROWS_PER_CHUNK", 3)
    rows = np.arange(40, dtype=np.float32).reshape(10, 4)
    inputs = tmp_path / "many.npy"
    np.save(inputs, rows)
    uniforms = tmp_path / "u.json"
    uniforms.write_text(json.dumps({"scale": [2, 0.5, "inf", -1]}))
    status, out, err = pica("run", shbin_file, "--inputs", inputs, "--uniforms", uniforms,
                            "--format", "json")
    assert status == 0, err
    o0 = json.loads(out)["outputs"]["o0"]
    expected = [[2 * a, 0.5 * b, "nan" if c == 0 else "inf", -d] for a, b, c, d in
                rows.tolist()]
    assert o0 == expected
    status, out, err = pica("run", shbin_file, "--inputs", inputs, "--uniforms", uniforms)
    assert status == 0, err
    lines = out.splitlines()
    assert len(lines) == 1 + 2 * 10
    assert lines[-2].split() == ["9", "o0", "position", "72", "18.5", "inf", "-39"]


#: 1 + 2^-17 + 2^-20: float24 rounds it to 1 + 2^-16 to nearest, to 1.0 truncating.
BETWEEN = 1.0 + 2.0**-17 + 2.0**-20


@pytest.fixture
def passing(tmp_path):
    """A shader that writes its input (o0 = v0: the loaded value) and the input's file."""
    source = tmp_path / "pass.v.pica"
    source.write_text(".out opos position\n.proc main\n    mov opos, v0\n    end\n.end\n")
    inputs = tmp_path / "between.npy"
    np.save(inputs, np.full((2, 4), BETWEEN))
    return source, inputs


@pytest.mark.parametrize(("rounding", "value"), [(None, 1.0 + 2.0**-16),
                                                 ("nearest-even", 1.0 + 2.0**-16),
                                                 ("truncate", 1.0)])
def test_run_rounding(pica, passing, rounding, value):
    source, inputs = passing
    extra = () if rounding is None else ("--rounding", rounding)
    status, out, err = pica("run", source, "--inputs", inputs, "--format", "json", *extra)
    assert status == 0, err
    data = json.loads(out)
    assert data["outputs"]["o0"] == [[value] * 4] * 2
    assert data["precision"] == "f24" and data["rounding"] == (rounding or "nearest-even")


def test_trace_rounding(pica, passing):
    source, inputs = passing
    texts = {}
    for rounding in ("nearest-even", "truncate"):
        status, out, err = pica("trace", source, "--inputs", inputs, "--rounding", rounding)
        assert status == 0, err
        texts[rounding] = out
    assert "1.0000153" in texts["nearest-even"]  # 1 + 2^-16
    assert "1.0000153" not in texts["truncate"]


def test_rounding_errors(pica, passing):
    source, inputs = passing
    for command in ("run", "trace"):
        status, _, err = pica(command, source, "--inputs", inputs, "--precision", "f32",
                              "--rounding", "truncate")
        assert status == 1 and "--rounding truncate needs --precision f24" in err
        assert "Traceback" not in err
        with pytest.raises(SystemExit) as exit_:
            pica(command, source, "--inputs", inputs, "--rounding", "trunc")
        assert exit_.value.code == 2
    # f32 rounds to nearest even: saying so is allowed
    status, out, err = pica("run", source, "--inputs", inputs, "--precision", "f32",
                            "--rounding", "nearest-even", "--format", "json")
    assert status == 0, err
    assert json.loads(out)["outputs"]["o0"][0] == [float(np.float32(BETWEEN))] * 4


def test_rounding_help(pica, capsys):
    for command in ("run", "trace"):
        with pytest.raises(SystemExit):
            pica(command, "--help")
        text = capsys.readouterr().out
        assert "--rounding {nearest-even,truncate}" in text and "Citra PR #7372" in text
