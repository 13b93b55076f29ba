"""``a2xx trace``: one invocation, clause by clause and instruction by instruction.

Expected values are worked out by hand from the programs' text: the vertex buffer's
floats, products with the constants, and the predicate rule of PRED_SETEs
(a2xx-isa.md#scalar-ops: p0 = (a == 0), ps = 0.0 if so else 1.0).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from container_helpers import build_container
from test_a2xx_cli import SOURCE

from gpuisa.a2xx import assemble
from gpuisa.a2xx.containers import Constant
from gpuisa.a2xx.engine.trace import Change, format_trace, trace
from gpuisa.a2xx.xna_asm import assemble_xenia
from gpuisa.errors import InputError

# test_a2xx_cli.py's program, its color multiplied by C4 instead of C3.
VERTEX = assemble(SOURCE.replace("C3", "C4"))
BUFFER = np.array([1, 2, 3, 4, 5, 6], dtype=np.float32)
PREDICATED = assemble_xenia("""\
/*    0.0 */       exece
/*    1   */          setp_eq r0._, r0.x
/*    2   */     (p0) add r1, r0, c0
/*    0.1 */       cnop
""").words


def test_vertex_trace_of_the_second_vertex() -> None:
    steps = trace(VERTEX, "vertex", invocation=1, count=2, vertex_buffers={12: BUFFER},
                  float_constants={4: [2, 3, 4, 5]})
    assert [(s.cf, s.slot) for s in steps] == [(0, None), (1, None), (1, 2), (1, 3),
                                               (2, None), (3, None), (3, 4)]
    fetch, position, color = steps[2], steps[3], steps[6]
    assert fetch.text.startswith("vfetch_full r1.xyz1, r0.x, vf83")
    assert fetch.changes == (Change("r1", (0.0,) * 4, (4.0, 5.0, 6.0, 1.0)),)
    assert position.changes == (Change("export62", (0.0,) * 4, (4.0, 5.0, 6.0, 1.0)),)
    assert color.changes == (Change("export0", (0.0,) * 4, (8.0, 15.0, 24.0, 5.0)),)
    text = format_trace(steps, "vertex")
    assert "        oPos = 4, 5, 6, 1   (was 0, 0, 0, 0)\n" in text
    assert "        o0 = 8, 15, 24, 5   (was 0, 0, 0, 0)\n" in text


def test_constants_are_named_from_the_table() -> None:
    mvp = Constant("mvp", "float4", 4, 4, "matrix_rows", "float", 4, 4, 1)
    steps = trace(VERTEX, "vertex", count=1, vertex_buffers={12: BUFFER}, constants=(mvp,))
    assert steps[-1].constants == ("c4 = mvp[0]",)
    assert "        ; c4 = mvp[0]\n" in format_trace(steps, "vertex")


@pytest.mark.parametrize(
    ("x", "p0", "ps", "executed"),
    [(0.0, (0.0, 1.0), None, True), (1.0, None, (0.0, 1.0), False)],
)
def test_predicate_and_skipped_instruction(
    x: float, p0: tuple[float, float] | None, ps: tuple[float, float] | None, executed: bool
) -> None:
    interpolants = np.array([[x, 2, 3, 4]], dtype=np.float32)
    steps = trace(PREDICATED, "fragment", interpolants=interpolants,
                  float_constants={0: [10, 20, 30, 40]})
    setp, add = steps[1], steps[2]
    changes = {c.name: (c.before[0], c.after[0]) for c in setp.changes}
    assert changes.get("p0") == p0 and changes.get("ps") == ps
    assert add.executed is executed
    if executed:
        assert add.changes == (Change("r1", (0.0,) * 4, (10.0, 22.0, 33.0, 44.0)),)
    else:
        assert add.changes == () and "(skipped)" in format_trace(steps, "fragment")


def test_invocation_must_exist() -> None:
    with pytest.raises(InputError, match="invocation 3 does not exist"):
        trace(VERTEX, "vertex", invocation=3, count=2, vertex_buffers={12: BUFFER})


def test_cli_trace_of_a_container(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "shader.xvu"
    code = struct.pack(f">{len(VERTEX)}I", *VERTEX)
    path.write_bytes(build_container(microcode=code, elements=(2,)))  # slot 2: POSITION0
    inputs = tmp_path / "in.json"
    inputs.write_text('{"count": 2, "buffers": {"12": [1, 2, 3, 4, 5, 6]}}')
    from gpuisa.a2xx.cli import main

    # The program is an Adreno one (STRIDE(12) in bytes); a container runs as Xenos
    # unless told otherwise.
    argv = ["trace", str(path), "--inputs", str(inputs), "--target", "adreno"]
    assert main([*argv, "--invocation", "1"]) == 0
    out = capsys.readouterr().out
    assert "        r1 = 4, 5, 6, 1   (was 0, 0, 0, 0)\n" in out
    assert "        ; reads POSITION0\n" in out  # the container's vertex element
    assert "        ; c4 = mvp[0]\n" in out  # the container's constant table names c4
    assert main([*argv, "--invocation", "5"]) == 1
    assert "invocation 5 does not exist" in capsys.readouterr().err


def test_constants_set_by_their_container_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from gpuisa.a2xx.cli import main

    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container(microcode=struct.pack(f">{len(VERTEX)}I", *VERTEX)))
    inputs = tmp_path / "in.json"
    inputs.write_text('{"count": 1, "buffers": {"12": [1, 2, 3]}}')
    constants = tmp_path / "c.json"
    # mvp occupies c4-c7 in the container's table; its first row is c4.
    constants.write_text('{"float": {"mvp": [[2, 3, 4, 5], [0, 0, 0, 0]]}}')
    argv = ["trace", str(path), "--inputs", str(inputs), "--constants", str(constants)]
    assert main(argv) == 0
    assert "        o0 = 2, 6, 12, 5   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
    constants.write_text('{"float": {"mvp": [[1, 2, 3]]}}')
    assert main(argv) == 1
    assert "mvp occupies 4 register(s) from c4" in capsys.readouterr().err


def test_container_literals_are_loaded_and_can_be_overridden(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from gpuisa.a2xx.cli import main

    path = tmp_path / "shader.xvu"
    code = struct.pack(f">{len(VERTEX)}I", *VERTEX)
    path.write_bytes(build_container(microcode=code, literals=((4, (3.0, 1.0, 1.0, 2.0)),)))
    inputs = tmp_path / "in.json"
    inputs.write_text('{"count": 1, "buffers": {"12": [1, 2, 3]}}')
    assert main(["trace", str(path), "--inputs", str(inputs)]) == 0
    assert "        o0 = 3, 2, 3, 2   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
    constants = tmp_path / "c.json"
    constants.write_text('{"float": {"C4": [1, 1, 1, 1]}}')
    assert main(["trace", str(path), "--inputs", str(inputs), "--constants", str(constants)]) == 0
    assert "        o0 = 1, 2, 3, 1   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
    assert main(["disasm", str(path)]) == 0
    assert "; def c4 = 3, 1, 1, 2\n" in capsys.readouterr().out


def test_xbox_files_run_as_xenos(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Xenos reads the vertex fetch stride in dwords, Adreno in bytes
    (a2xx-isa.md#adreno-vs-xenos): vertex 1 of STRIDE(12) starts at float 12 or float 3
    of the buffer 1, 2, ..., 24."""
    from gpuisa.a2xx.cli import main

    path = tmp_path / "shader.xvu"
    path.write_bytes(build_container(microcode=struct.pack(f">{len(VERTEX)}I", *VERTEX)))
    inputs = tmp_path / "in.json"
    inputs.write_text(json.dumps({"count": 2, "buffers": {"12": list(range(1, 25))}}))
    argv = ["trace", str(path), "--inputs", str(inputs), "--invocation", "1"]
    assert main(argv) == 0
    assert "        r1 = 13, 14, 15, 1   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
    assert main([*argv, "--target", "adreno"]) == 0
    assert "        r1 = 4, 5, 6, 1   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
    raw = tmp_path / "raw.bin"  # little-endian raw microcode: Adreno
    raw.write_bytes(struct.pack(f"<{len(VERTEX)}I", *VERTEX))
    assert main(["trace", str(raw), "--type", "vs", *argv[2:]]) == 0
    assert "        r1 = 4, 5, 6, 1   (was 0, 0, 0, 0)\n" in capsys.readouterr().out
