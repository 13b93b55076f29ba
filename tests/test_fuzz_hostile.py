"""Fuzzing every way in (issue 12): mutated assembly sources for both assemblers, mutated
run input files, and random command lines.  Each case must succeed or raise a
GpuIsaError (a CLI: exit 0 or 1, or 2 for argparse usage errors), within bounded time
and memory.  The mutations include what broke before: numbers of thousands of digits,
huge array sizes and counts, doubled commas, byte order marks, deep JSON, empty and
truncated files.  Deterministic (fixed seeds); about half a minute in all."""

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
        main = pica_main if prog == "pica" else a2xx_main
        status: list[object] = []

        def call(main=main, argv=argv, status=status):
            try:
                status.append(main(argv))
            except SystemExit as exit_:  # argparse: usage errors and --help
                status.append(exit_.code)

        with contextlib.redirect_stdout(io.StringIO()):
            _bounded(call)
        capsys.readouterr()
        assert status and status[0] in (0, 1, 2), (prog, argv, status)
