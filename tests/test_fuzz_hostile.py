"""Fuzzing every way in (issues 12 and 30): mutated assembly sources for both
assemblers, mutated run input files, random command lines; and (issue 30) pica check's
limits, pica render's options, results for pica vectors --check, the language server's
message frames.  Each case must succeed or raise a
GpuIsaError (a CLI: exit 0 or 1, or 2 for argparse usage errors), within bounded time
and memory.  The mutations include what broke before: numbers of thousands of digits,
huge array sizes and counts, doubled commas, byte order marks, deep JSON, empty and
truncated files, NaN and negative limits, bad Content-Length headers.  Deterministic
(fixed seeds); about a minute in all."""

from __future__ import annotations

import contextlib
import io
import json
import random
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from gpuisa.a2xx import assemble as a2xx_assemble
from gpuisa.a2xx.cli import main as a2xx_main
from gpuisa.a2xx.engine.files import load_inputs as a2xx_load_inputs
from gpuisa.errors import GpuIsaError
from gpuisa.pica import assemble
from gpuisa.pica.cli import main as pica_main
from gpuisa.pica.cli.run import load_inputs, load_uniforms

SECONDS = 5.0
MEGABYTES = 300

PICA_SOURCE = """\
.gsh point c0
.fvec mvp[4], tint
.ivec loopcfg
.bool flag
.constf k(0.0, 1.0, -1.0, 0.5)
.constfa tab[3]
.constfa (1.0, 2.0, 3.0, 4.0)
.end
.alias ones k.yyyy
.in pos
.out opos position
.out oclr color
.setb b5 true
.proc main
    mov r0, pos
    mova a0.x, r0
    dp4 opos.x, mvp[0], pos
    for i0
        add r2, tab[aL], r2
        breakc cmp.x
    .end
    ifu flag
        mul oclr, tint, r2
    .else
        mov oclr, r2
    .end
    end
.end
"""

A2XX_SOURCE = """\
EXEC ADDR(0x3) CNT(0x1)
   (S)FETCH:    VERTEX  R1.xyz1 = R0.x FMT_32_32_32_FLOAT UNSIGNED STRIDE(12) CONST(10)
ALLOC COORD SIZE(0x0)
EXEC ADDR(0x4) CNT(0x1)
      ALU:  MAXv    export62 = R1, R1
ALLOC PARAM/PIXEL SIZE(0x0)
EXEC_END ADDR(0x5) CNT(0x0)
"""

#: Pieces that broke gpuisa before (issue 12) or that parsers commonly mishandle.
HOSTILE = ["9" * 5000, "0x" + "f" * 3000, "[99999999999]", ",,", ",", "\ufeff", "\x00",
           "(", ")", "[", "]", ".", "-", "99999999999", "c" + "9" * 400, "\n.end\n",
           "\n.proc x\n", "\t", "\r", "é", "\udcff", "b0,", "ADDR(0x" + "1" * 60 + ")",
           "CNT(999999)", "R" + "7" * 100]


def _bounded(call: Callable[[], object]) -> None:
    """Run ``call``: it must return or raise a GpuIsaError, within SECONDS and
    MEGABYTES of traced allocations (NumPy reports its arrays to tracemalloc)."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        call()
    except GpuIsaError:
        pass
    finally:
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < SECONDS, f"took {elapsed:.1f} s"
    assert peak < MEGABYTES << 20, f"allocated {peak >> 20} MiB"


def _mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        choice = rng.random()
        if choice < 0.45:
            text = text[:at] + rng.choice(HOSTILE) + text[at:]
        elif choice < 0.65:
            text = text[:at] + text[at + rng.randint(1, 20):]
        elif choice < 0.8:
            text = text[:at]
        else:
            line = rng.choice(text.splitlines() or [""])
            text = text[:at] + "\n" + line + "\n" + text[at:]
    return text


@pytest.mark.parametrize("seed", range(4))
def test_pica_assembler_on_mutated_sources(seed):
    assemble(PICA_SOURCE)  # the seed itself is valid
    rng = random.Random(seed)
    for _ in range(300):
        source = _mutate(rng, PICA_SOURCE)
        strict = rng.random() < 0.2
        _bounded(lambda s=source, k=strict: assemble([("fuzz.pica", s)], strict=k))


@pytest.mark.parametrize("seed", range(2))
def test_a2xx_assembler_on_mutated_sources(seed):
    a2xx_assemble(A2XX_SOURCE)  # the seed itself is valid
    rng = random.Random(100 + seed)
    for _ in range(400):
        source = _mutate(rng, A2XX_SOURCE)
        _bounded(lambda s=source: a2xx_assemble(s))


def _input_files() -> dict[str, bytes]:
    rows = np.arange(16, dtype=np.float32).reshape(4, 4)
    npy, npz = io.BytesIO(), io.BytesIO()
    np.save(npy, rows)
    np.savez(npz, v0=rows, v1=rows * 2)
    return {
        "npy": npy.getvalue(),
        "npz": npz.getvalue(),
        "json": json.dumps({"v0": rows.tolist(), "v1": [1, 2, 3, "inf"]}).encode(),
        "csv": b"v0.x,v0.y,v0.z,v0.w\n1,2,3,4\n5,6,7,8\n",
    }


def _mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        choice = rng.random()
        at = rng.randrange(len(data) + 1)
        if choice < 0.4 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif choice < 0.55:
            del data[at:]
        elif choice < 0.7:
            data[at:at] = rng.choice([b"9" * 5000, b"[" * 3000, b"\xff\xfe", b"\x00" * 9,
                                      b"(99999999999, 4)", b"'shape': (10**11,"])
        else:
            # Overwrite a run of digits (header shapes, sizes) with a huge number.
            digits = [i for i, b in enumerate(data) if 0x30 <= b <= 0x39]
            if digits:
                i = rng.choice(digits)
                data[i : i + 1] = b"99999999999"
    return bytes(data)


@pytest.mark.parametrize("kind", ["npy", "npz", "json", "csv"])
def test_run_input_readers_on_mutated_files(tmp_path, kind):
    rng = random.Random(kind)
    seed = _input_files()[kind]
    path = tmp_path / f"inputs.{kind}"
    for _ in range(400):
        path.write_bytes(_mutate_bytes(rng, seed))
        _bounded(lambda: load_inputs(str(path)))
        if kind == "json":
            _bounded(lambda: load_uniforms(str(path)))
        if kind != "csv":
            _bounded(lambda: a2xx_load_inputs(str(path)))


def _run_cli(main: Callable[[list[str]], int], argv: list[str]) -> list[object]:
    """``main(argv)`` bounded, standard output discarded: [exit status]."""
    status: list[object] = []

    def call() -> None:
        try:
            status.append(main(argv))
        except SystemExit as exit_:  # argparse: usage errors and --help
            status.append(exit_.code)

    with contextlib.redirect_stdout(io.StringIO()):
        _bounded(call)
    return status


def _cli_case(rng: random.Random, tmp_path, files: dict[str, str]) -> list[str]:
    numbers = ["0", "1", "-1", "99999999999999999999", "3000000000", "9" * 5000, "x", ""]
    pica = rng.random() < 0.6
    if pica:
        command = rng.choice(["asm", "disasm", "run", "trace"])
        argv = [command]
        choices = {
            "asm": [["-o", rng.choice([files["out"], "-"])], [files["pica"]],
                    ["-h", files["out_h"]], ["-n"], ["--Werror"], ["--picasso-strict"],
                    [files["bad_pica"]]],
            "disasm": [[files["shbin"]], ["--raw"], ["-o", files["out"]], [files["dir"]]],
            "run": [[files["shbin"]], ["--inputs", files["npy"]], ["--inputs", files["bad"]],
                    ["--uniforms", files["json"]], ["--dvle", rng.choice(numbers)],
                    ["--max-steps", rng.choice(numbers)], ["--precision", "f32"],
                    ["--format", rng.choice(["json", "npz", "table", "xml"])],
                    ["-o", rng.choice([files["out"], "-"])], ["--registers"],
                    ["--engine", rng.choice(["reference", "jit", "auto", "nope"])]],
            "trace": [[files["shbin"]], ["--inputs", files["npy"]],
                      ["--vertex", rng.choice(numbers)], ["--max-steps", "5"]],
        }[command]
    else:
        command = rng.choice(["asm", "disasm", "run"])
        argv = [command]
        choices = {
            "asm": [[files["a2xx"]], ["-o", rng.choice([files["out"], "-"])], ["--hex"],
                    ["--Werror"]],
            "disasm": [[files["a2xx_bin"]], ["--type", rng.choice(["vs", "fs", "gs"])],
                       ["--raw"], ["-o", files["out"]]],
            "run": [[files["a2xx"]], ["--type", "vs"], ["--type", "fs"],
                    ["--count", rng.choice(numbers)], ["--inputs", files["npy"]],
                    ["--max-steps", rng.choice(numbers)], ["--format", "json"]],
        }[command]
    # Mostly a valid command line (its first choices) with hostile options added.
    if rng.random() < 0.7:
        base = {("pica", "asm"): 2, ("pica", "disasm"): 1, ("pica", "run"): 2,
                ("pica", "trace"): 2, ("a2xx", "asm"): 2, ("a2xx", "disasm"): 2,
                ("a2xx", "run"): 2}[("pica" if pica else "a2xx", command)]
        for option in choices[:base]:
            argv += option
    for _ in range(rng.randint(0, 4)):
        argv += rng.choice(choices)
    return ["pica" if pica else "a2xx", *argv]


def test_random_command_lines(tmp_path, capsys):
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(".out o position\n.proc main\n    mov o, v0\n    end\n.end\n"
                               ).to_bytes())
    (tmp_path / "s.pica").write_text(PICA_SOURCE)
    (tmp_path / "bad.pica").write_text(".constfa t[99999999999]\n.end\n.fvec a,, b\n")
    np.save(tmp_path / "in.npy", np.ones((3, 4), dtype=np.float32))
    (tmp_path / "bad.npy").write_bytes(b"")
    (tmp_path / "u.json").write_text('{"c0": 1.5}')
    (tmp_path / "vs.txt").write_text(A2XX_SOURCE)
    (tmp_path / "vs.bin").write_bytes(b"".join(w.to_bytes(4, "little")
                                               for w in a2xx_assemble(A2XX_SOURCE)))
    (tmp_path / "d").mkdir()
    files = {"shbin": str(shbin), "pica": str(tmp_path / "s.pica"),
             "bad_pica": str(tmp_path / "bad.pica"), "npy": str(tmp_path / "in.npy"),
             "bad": str(tmp_path / "bad.npy"), "json": str(tmp_path / "u.json"),
             "a2xx": str(tmp_path / "vs.txt"), "a2xx_bin": str(tmp_path / "vs.bin"),
             "out": str(tmp_path / "out.bin"), "out_h": str(tmp_path / "out.h"),
             "dir": str(tmp_path / "d")}
    rng = random.Random(7)
    for _ in range(600):
        prog, *argv = _cli_case(rng, tmp_path, files)
        status = _run_cli(pica_main if prog == "pica" else a2xx_main, argv)
        capsys.readouterr()
        assert status and status[0] in (0, 1, 2), (prog, argv, status)


# -- issue 30: the new surfaces -----------------------------------------------------------

#: Option values: valid ones (small enough to finish at once) among hostile ones.
HOSTILE_NUMBERS = ["0", "1", "2", "-1", "-5", "nan", "inf", "-inf", "1e400", "0.5", "x", "",
                   "99999999999999999999", "9" * 5000, "3000000000", "1_0", " 7", "0x10"]


def test_check_limits_and_options(tmp_path, capsys):
    source = tmp_path / "s.pica"
    source.write_text(PICA_SOURCE)
    shbin = tmp_path / "s.shbin"
    shbin.write_bytes(assemble(PICA_SOURCE).to_bytes())
    rng = random.Random(30)
    options = [["--max-states"], ["--max-seconds"], ["--format", "json"], ["--Werror"],
               ["--format", "sarif"], ["--enable", "PICA402"], ["--disable", "PICA604"],
               ["--enable", "PICA999"], ["-o", str(tmp_path / "report")]]
    for _ in range(150):
        argv = ["check", *rng.sample([str(source), str(shbin)], rng.randint(0, 2))]
        for _ in range(rng.randint(1, 4)):
            option = list(rng.choice(options))
            if len(option) == 1 and option[0].startswith("--max"):
                option.append(rng.choice(HOSTILE_NUMBERS))
            argv += option
        status = _run_cli(pica_main, argv)
        capsys.readouterr()
        assert status and status[0] in (0, 1, 2), (argv, status)


def _square_mesh(path) -> None:
    path.write_text("ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                    "property float y\nproperty float z\nelement face 2\n"
                    "property list uchar int vertex_indices\nend_header\n"
                    "-0.5 -0.5 -0.5\n0.5 -0.5 -0.5\n0.5 0.5 -0.5\n-0.5 0.5 -0.5\n"
                    "3 0 1 2\n3 0 2 3\n")


def test_render_options(tmp_path, capsys):
    pytest.importorskip("trimesh")
    pytest.importorskip("PIL")
    shader = tmp_path / "s.pica"
    shader.write_text(".fvec projection[4], modelview[4]\n.in pos\n.in nrm\n"
                      ".out opos position\n.out oclr color\n.proc main\n"
                      "    dp4 opos.x, projection[0], pos\n    dp4 opos.y, projection[1], pos\n"
                      "    dp4 opos.z, projection[2], pos\n    dp4 opos.w, projection[3], pos\n"
                      "    mov oclr, nrm\n    end\n.end\n")
    mesh = tmp_path / "m.ply"
    _square_mesh(mesh)
    rng = random.Random(31)
    # option -> (values that render, hostile values)
    options = {
        "--fov": (["30", "90", "179.5"], HOSTILE_NUMBERS),
        "--frames": (["1", "2"], ["0", "-1", "10001", "x", "9" * 5000]),
        "--frame-ms": (["1", "50", "65535"], HOSTILE_NUMBERS),
        "--size": (["8x8", "1x1", "16X9"],
                   ["0x5", "5x", "x", "8193x1", "-3x4", "99999999999x2", "nanxnan"]),
        "--max-steps": (["1000", "99999999999999999999"], HOSTILE_NUMBERS),
        "--dvle": (["0"], HOSTILE_NUMBERS),
        "--gsh": ([], HOSTILE_NUMBERS),
        "--stride": ([], HOSTILE_NUMBERS),
        "--camera": (["auto", "0,0,2,0,0,0", "0,1,0,0,0,0,0,0,1"],
                     ["nan,0,0,0,0,0", "1,2,3", "0,0,0,0,0,0", "0,1,0,0,0,0,0,1,0",
                      "inf,0,0,0,0,0", ""]),
        "--attr": (["pos=position", "nrm=normal", "nrm=color"],
                   ["v0=banana", "nrm=texcoord", "x=y", "=", "v99=color"]),
        "--uniform-step": (["projection=0.1", "modelview=0.1,0,0,0"],
                           ["modelview=nan", "nope=1", "x", "projection=1,2"]),
        "--background": (["00000000", "ff00ff"], ["zz", "123", "#"]),
        "--mode": (["color", "flat", "wireframe", "depth"], ["x"]),
        "--primitive-sizes": ([], ["3", "0", "x"]),
        "--screen": (["top", "bottom"], ["side"]),
    }
    statuses = []
    for case in range(120):
        out = tmp_path / rng.choice(["o.png", "o.gif", "f_%02d.png", "o.apng", "o.jpg"])
        argv = ["render", str(shader), "--mesh", str(mesh), "-o", str(out)]
        if rng.random() < 0.8:
            argv += ["--camera", "auto", "--size", "8x8"]
        for option in rng.sample(sorted(options), rng.randint(1, 4)):
            good, bad = options[option]
            argv += [option, rng.choice(good if good and rng.random() < 0.7 else bad)]
        if rng.random() < 0.2:
            argv.append(rng.choice(["--tilt", "--compare"]))
        status = _run_cli(pica_main, argv)
        err = capsys.readouterr().err
        assert status and status[0] in (0, 1, 2), (case, argv, status)
        assert "Traceback" not in err, (argv, err)
        statuses.append(status[0])
    assert statuses.count(0) >= 20  # pictures were drawn, not only errors reported


def _result_record(rng: random.Random) -> object:
    """A result line as an emulator would write one, then hostile values put into it."""
    patterns = ["0x3f0000", "0x000000", 0, 16777215]
    record: dict[str, object] = {
        "id": "case", "status": rng.choice(["ok", "ok", "hang", "fault"]), "pc": 17,
        "outputs": {"o0": [rng.choice(patterns) for _ in range(4)],
                    "o1": [rng.choice(patterns) for _ in range(4)]},
        "cmp": [True, False], "address": [0, -3, 255],
        "vertices": [{"o0": ["0x0"] * 4, "o1": ["0x0"] * 4}],
        "primitives": [[0, 0, 0, 1]], "semantics": {"color": ["0x3f0000"] * 4}}
    hostile = ["abc", -1, 2**70, 1.5, None, True, [], {}, [[[]]], "0x" + "f" * 60, "9" * 50,
               float("nan"), {"o0": 1}, [1, 2], "ok"]
    for _ in range(rng.randint(1, 4)):
        keys = [("status",), ("pc",), ("outputs",), ("outputs", "o0"), ("cmp",),
                ("address",), ("vertices",), ("primitives",), ("semantics",),
                ("semantics", "color"), ("vertices", 0), ("primitives", 0),
                ("outputs", "o1")]
        path = rng.choice(keys)
        target: object = record
        try:
            for key in path[:-1]:
                target = target[key]  # type: ignore[index]
            target[path[-1]] = rng.choice(hostile)  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            pass  # the container was replaced by an earlier mutation
    return record if rng.random() < 0.9 else rng.choice(hostile)


def test_vectors_results(tmp_path):
    from gpuisa.pica.vectors.check import check as check_results
    from gpuisa.pica.vectors.suite_io import parse_result, read_results

    rng = random.Random(32)
    for _ in range(600):
        record = _result_record(rng)
        if isinstance(record, dict):
            mode = rng.choice(["f24", "f32"])
            _bounded(lambda r=record, m=mode: parse_result(r, m, "r.jsonl:1", ("o0", "o1")))
    lines = "".join(json.dumps(_result_record(rng)) + "\n" for _ in range(40)).encode()
    path = tmp_path / "r.jsonl"
    for _ in range(150):
        path.write_bytes(_mutate_bytes(rng, lines))
        _bounded(lambda: check_results([], read_results(str(path)), "f24", str(path)))


def _lsp_frames(rng: random.Random) -> bytes:
    """A session's bytes: valid messages, and mutated ones (headers, lengths, bodies)."""
    def frame(message: object) -> bytes:
        body = json.dumps(message).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    uri = "file:///fuzz/a.pica"
    position = {"line": 1, "character": 4}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "pica", "version": 1, "text": PICA_SOURCE}}},
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": position}},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/definition",
         "params": {"textDocument": {"uri": uri}, "position": position}},
        {"jsonrpc": "2.0", "id": 4, "method": "textDocument/completion",
         "params": {"textDocument": {"uri": uri}, "position": position}},
    ]
    out = b""
    for message in messages:
        data = frame(message)
        if rng.random() < 0.4:
            choice = rng.random()
            if choice < 0.3:  # another number in the header
                data = data.replace(data.split(b"\r\n")[0], b"Content-Length: "
                                    + rng.choice([b"-5", b"99999999999999", b"0", b"x",
                                                  b"3", b"1" * 30, b""]))
            elif choice < 0.6:  # a hostile value inside the body
                text = data.split(b"\r\n\r\n", 1)[1].decode()
                line = rng.choice(["-1", "1099511627776", "null", "[]", "1.5"])
                text = text.replace('"line": 1', f'"line": {line}')
                data = frame(json.loads(text)) if rng.random() < 0.5 else data
            else:
                data = _mutate_bytes(rng, data)
        out += data
    return out + (frame({"jsonrpc": "2.0", "id": 9, "method": "shutdown"})
                  + frame({"jsonrpc": "2.0", "method": "exit"}) if rng.random() < 0.5 else b"")


def test_lsp_frames_read_in_bounded_memory():
    """The framing alone, in this process: every byte stream ends in a message size, the
    end of the input or the stream found broken."""
    pytest.importorskip("pygls")
    import asyncio

    from gpuisa.pica.lsp.server import _Broken, _Input

    async def sizes(data: bytes) -> list[int]:
        source = _Input(io.BytesIO(data))
        found = []
        try:
            while (size := await source.header()) is not None:
                found.append(size)
                await source.body(size)
        except _Broken:
            found.append(-1)
        finally:
            source.pool.shutdown()
        return found

    rng = random.Random(33)
    ends = set()
    for _ in range(200):
        data = _lsp_frames(rng)
        found: list[int] = []
        _bounded(lambda d=data, f=found: f.extend(asyncio.run(sizes(d))))
        ends.add(found[-1] == -1 if found else None)
    assert ends == {True, False}  # both broken streams and whole ones were made


def test_lsp_sessions_on_mutated_frames():
    """Whole sessions: the server ends (at the end of its input, on exit, or on a broken
    stream) with status 0 or 1 and no traceback."""
    pytest.importorskip("pygls")
    import os
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    rng = random.Random(34)
    for _ in range(5):
        data = b"".join(_lsp_frames(rng) for _ in range(2))
        done = subprocess.run([sys.executable, "-m", "gpuisa", "lsp"], input=data,
                              capture_output=True, timeout=120,
                              env=dict(os.environ, PYTHONPATH=src))
        assert done.returncode in (0, 1), done.stderr
        assert b"Traceback" not in done.stderr, done.stderr
