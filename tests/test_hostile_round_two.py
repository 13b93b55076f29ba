"""Regression tests of issue 30 (hostile input, round two): no traceback, no hang,
nothing lost.  The numbered comments are the issue's defect classes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpuisa.errors import InputError
from gpuisa.pica.cli import main as pica_main

SRC = str(Path(__file__).resolve().parents[1] / "src")
PASSTHROUGH = ".out opos position\n.proc main\n    mov opos, v0\n    end\n.end\n"


def _pica(capsys, *argv: object) -> tuple[int, str, str]:
    """``pica ARGV`` in this process -> (exit status, stdout, stderr)."""
    status = pica_main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def _ply(path: Path, vertices: list[list[float]], faces: list[list[int]],
         normals: list[list[float]] | None = None) -> Path:
    """An ASCII PLY file, written by hand (not by trimesh)."""
    lines = ["ply", "format ascii 1.0", f"element vertex {len(vertices)}",
             "property float x", "property float y", "property float z"]
    if normals is not None:
        lines += ["property float nx", "property float ny", "property float nz"]
    lines += [f"element face {len(faces)}", "property list uchar int vertex_indices",
              "end_header"]
    for k, vertex in enumerate(vertices):
        lines.append(" ".join(map(str, vertex + (normals[k] if normals else []))))
    lines += [f"3 {a} {b} {c}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- 1: normals of a mesh without stored normals ----------------------------------------

#: Two right triangles meeting at a right angle along the edge v0-v2: A = (v0, v1, v2)
#: in the plane z = 0, B = (v0, v2, v3) in the plane x = 0, twice A's area.
ROOF = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]
ROOF_FACES = [[0, 1, 2], [0, 2, 3]]
# Cross products: A (1,0,0) x (0,1,0) = (0,0,1); B (0,1,0) x (0,0,2) = (2,0,0).  Area
# weighting sums them where the faces meet: (2,0,1)/sqrt(5) at v0 and v2.  (trimesh's
# angle weighting would give (1,0,1)/sqrt(2) there: both angles at v0 are right angles.)
ROOF_NORMALS = [[2 / 5**0.5, 0, 1 / 5**0.5], [0, 0, 1], [2 / 5**0.5, 0, 1 / 5**0.5],
                [1, 0, 0]]


def test_normals_of_a_mesh_without_them_are_area_weighted(tmp_path):
    pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    mesh = load_mesh(_ply(tmp_path / "roof.ply", ROOF, ROOF_FACES))
    assert mesh.normals is None  # not stored: computed by gpuisa when asked
    np.testing.assert_allclose(mesh.attribute("normal")[:, :3], ROOF_NORMALS, atol=1e-12)
    assert not mesh.attribute("normal")[:, 3].any()  # w = 0


def test_stored_normals_are_the_files(tmp_path):
    pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    stored = [[0.0, 0.0, 2.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    mesh = load_mesh(_ply(tmp_path / "n.ply", ROOF[:3], [[0, 1, 2]], stored))
    np.testing.assert_allclose(mesh.normals, [[0, 0, 1], [0, 0, 1], [0, 1, 0]])


def test_stored_normals_move_with_the_scene_transform(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    from gpuisa.pica.render import load_mesh

    triangle = trimesh.Trimesh(vertices=ROOF[:3], faces=[[0, 1, 2]], process=False,
                               vertex_normals=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    scene = trimesh.Scene()
    shear = np.eye(4)
    shear[0, 1] = 1.0  # x' = x + y
    scene.add_geometry(triangle, transform=shear)
    path = tmp_path / "sheared.glb"
    path.write_bytes(scene.export(file_type="glb", include_normals=True))
    mesh = load_mesh(path)
    np.testing.assert_allclose(mesh.positions, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])
    # The plane x = 0 (normal x) becomes x' = y' under the shear: normal (1, -1, 0)/sqrt 2;
    # the planes y = 0 and z = 0 stay where they are.
    h = 0.5**0.5
    np.testing.assert_allclose(mesh.normals, [[h, -h, 0], [0, 1, 0], [0, 0, 1]],
                               atol=1e-7)


def test_render_without_scipy_prints_no_traceback(tmp_path):
    pytest.importorskip("trimesh")
    pytest.importorskip("PIL")
    shader = tmp_path / "n.v.pica"
    # The normal as the colour: v2 (no .in names) is the normal.
    shader.write_text(".out opos position\n.out oclr color\n.proc main\n"
                      "    mov opos, v0\n    mov oclr, v2\n    end\n.end\n")
    mesh = _ply(tmp_path / "roof.ply", ROOF, ROOF_FACES)
    out = tmp_path / "out.png"
    # SciPy made unimportable, as where trimesh cannot import it.
    code = ("import sys; sys.modules['scipy'] = None\n"
            "from gpuisa.pica.cli import main\n"
            f"sys.exit(main(['render', {str(shader)!r}, '--mesh', {str(mesh)!r}, "
            f"'-o', {str(out)!r}, '--size', '8x8']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=SRC), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert out.stat().st_size > 0


def test_trimesh_log_records_reach_no_handler(caplog):
    # With no handler of its own, a record of trimesh's that reaches none is printed by
    # Python's last-resort handler on stderr, traceback included.
    import logging

    from gpuisa.pica.render.mesh import _quiet_trimesh

    logger = logging.getLogger("trimesh.exchange.test")
    with caplog.at_level(logging.WARNING), _quiet_trimesh():
        try:
            raise ModuleNotFoundError("No module named 'scipy.sparse'")
        except ImportError:
            logger.warning("unable to use sparse matrix, falling back!", exc_info=True)
    assert caplog.records == []
    with caplog.at_level(logging.WARNING):
        logger.warning("after")  # outside, the record reaches the root's handlers
    assert [r.getMessage() for r in caplog.records] == ["after"]


# -- 3: a typo in --attr ----------------------------------------------------------------


def test_attr_typo_names_the_attribute(tmp_path, capsys):
    pytest.importorskip("trimesh")
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    mesh = _ply(tmp_path / "roof.ply", ROOF, ROOF_FACES)
    status, _, err = _pica(capsys, "render", shader, "--mesh", mesh, "-o",
                           tmp_path / "o.png", "--attr", "v0=banana")
    assert status == 1
    assert err == ("pica: error: --attr v0=banana: unknown mesh attribute 'banana'; use one "
                   "of position, color, normal, texcoord\n")
    assert not (tmp_path / "o.png").exists()


def test_attr_naming_a_missing_attribute_is_reported():
    from gpuisa.pica.render.mesh import mesh_from_arrays, shader_inputs

    mesh = mesh_from_arrays({"position": ROOF, "faces": ROOF_FACES})
    with pytest.raises(InputError, match="shader input v3: the mesh has no texture "
                                         "coordinates"):
        shader_inputs(mesh, None, {"v3": "texcoord"})
    # Without --attr, v3 = texcoord is only a default: left out for run() to report.
    assert sorted(shader_inputs(mesh, None)) == ["v0", "v1", "v2"]


# -- 2: render options; every numeric option of both command lines ----------------------


@pytest.fixture
def render_files(tmp_path):
    pytest.importorskip("trimesh")
    pytest.importorskip("PIL")
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    return shader, _ply(tmp_path / "roof.ply", ROOF, ROOF_FACES)


@pytest.mark.parametrize(("options", "message"), [
    (["--camera", "auto", "--fov", "0"],
     "--fov: expected a finite number greater than 0 and less than 180, got '0'"),
    (["--camera", "auto", "--fov", "nan"],
     "--fov: expected a finite number greater than 0 and less than 180, got 'nan'"),
    (["--frames", "2", "--frame-ms", "-5"],
     "--frame-ms: expected an integer from 1 to 65535, got '-5'"),
    (["--frames", "2", "--frame-ms", "1000000"],
     "--frame-ms: expected an integer from 1 to 65535, got '1000000'"),
    (["--frames", "0"], "--frames: expected an integer from 1 to 10000, got '0'"),
    (["--size", "0x5"], "--size: expected an integer from 1 to 8192, got '0'"),
    (["--size", "5x"], "--size: expected WIDTHxHEIGHT, got '5x'"),
    (["--camera", "nan,0,0,0,0,0"],
     "--camera: expected comma-separated finite numbers, got 'nan,0,0,0,0,0'"),
    (["--stride", "2"], "--stride needs --gsh N"),
    (["--gsh", "0", "--primitive-sizes", "3"], "--primitive-sizes: pica render feeds"),
])
@pytest.mark.parametrize("suffix", [".gif", ".png"])
def test_render_options_out_of_range(render_files, tmp_path, capsys, options, message,
                                     suffix):
    shader, mesh = render_files
    out = tmp_path / f"out{suffix}"
    status, _, err = _pica(capsys, "render", shader, "--mesh", mesh, "-o", out, *options)
    assert status == 1
    assert err.startswith(f"pica: error: {message}")
    assert not out.exists()


def test_camera_and_animation_api_check_their_numbers():
    from gpuisa.pica.render import Camera
    from gpuisa.pica.render.animate import animation_bytes

    with pytest.raises(InputError, match=r"need 0 < fov < 180 degrees, got fov 0"):
        Camera.fit(np.array(ROOF), fov=0)
    frame = np.zeros((2, 2, 4), dtype=np.uint8)
    for frame_ms in (-5, 0, 1_000_000):
        with pytest.raises(InputError, match=r"frame_ms must be 1\.\.65535 milliseconds"):
            animation_bytes([frame, frame], "a.gif", frame_ms=frame_ms)


HUGE = "9" * 5000


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "{shader}", "--inputs", "{inputs}", "--max-steps", "0"],
     "--max-steps: expected an integer of 1 or more, got '0'"),
    (["run", "{shader}", "--inputs", "{inputs}", "--dvle", "-1"],
     "--dvle: expected an integer of 0 or more, got '-1'"),
    (["run", "{shader}", "--inputs", "{inputs}", "--gsh", "-2"],
     "--gsh: expected an integer of 0 or more, got '-2'"),
    (["run", "{shader}", "--inputs", "{inputs}", "--dvle", "3"],
     "--dvle 3: the SHBIN has DVLEs 0..0"),
    (["trace", "{shader}", "--inputs", "{inputs}", "--gsh", "1"],
     "--gsh 1: the SHBIN has DVLEs 0..0"),
    (["run", "{shader}", "--inputs", "{inputs}", "--gsh", "0", "--stride", "17"],
     "--stride: expected an integer from 1 to 16, got '17'"),
    (["run", "{shader}", "--inputs", "{inputs}", "--gsh", "0", "--primitive-sizes", "3,0"],
     "--primitive-sizes: expected an integer of 1 or more, got '0'"),
    (["trace", "{shader}", "--inputs", "{inputs}", "--vertex", "x"],
     "--vertex: expected an integer of 0 or more, got 'x'"),
    (["trace", "{shader}", "--inputs", "{inputs}", "--vertex", f"-{HUGE}"],
     f"--vertex: expected an integer of 0 or more, got '-{HUGE[:39]}'... (5001 characters)"),
    (["trace", "{shader}", "--inputs", "{inputs}", "--gsh", "0", "--primitive", "-1"],
     "--primitive: expected an integer of 0 or more, got '-1'"),
    (["check", "{shader}", "--max-seconds", "nan"],
     "--max-seconds: expected a finite number greater than 0, got 'nan'"),
    (["check", "{shader}", "--max-seconds", "-1"],
     "--max-seconds: expected a finite number greater than 0, got '-1'"),
    (["check", "{shader}", "--max-seconds", "inf"],
     "--max-seconds: expected a finite number greater than 0, got 'inf'"),
    (["check", "{shader}", "--max-states", "-5"],
     "--max-states: expected an integer of 1 or more, got '-5'"),
    (["check", "{shader}", "--max-states", "0"],
     "--max-states: expected an integer of 1 or more, got '0'"),
    (["check"], "check: no input files are specified (see pica check --help)"),
])
def test_pica_numeric_options_are_range_checked(tmp_path, capsys, argv, message):
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    inputs = tmp_path / "in.npy"
    np.save(inputs, np.ones((2, 4), dtype=np.float32))
    argv = [a.format(shader=shader, inputs=inputs) for a in argv]
    status, out, err = _pica(capsys, *argv)
    assert (status, out) == (1, "")
    assert err == f"pica: error: {message}\n"


def test_a_huge_max_steps_is_no_limit(tmp_path, capsys):
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    inputs = tmp_path / "in.npy"
    np.save(inputs, np.full((1, 4), 2.0, dtype=np.float32))
    status, out, err = _pica(capsys, "run", shader, "--inputs", inputs, "--max-steps", HUGE,
                             "--format", "json")
    assert status == 0, err
    assert '"o0": [[2.0, 2.0, 2.0, 2.0]]' in out


@pytest.mark.parametrize(("options", "message"), [
    (["--count", "-1"], "--count: expected an integer from 0 to 16777216, got '-1'"),
    (["--count", "2", "--max-steps", "0"],
     "--max-steps: expected an integer of 1 or more, got '0'"),
])
def test_a2xx_numeric_options_are_range_checked(tmp_path, capsys, options, message):
    from gpuisa.a2xx.cli import main as a2xx_main

    program = tmp_path / "vs.txt"
    program.write_text("EXEC_END ADDR(0x1) CNT(0x1)\n      ALU:\tMAXv\texport62 = R0, R0\n")
    assert a2xx_main(["run", "--type", "vs", str(program), *options]) == 1
    assert capsys.readouterr().err == f"a2xx: error: {message}\n"


# -- 8: pica check's limits --------------------------------------------------------------


@pytest.mark.parametrize(("limits", "message"), [
    ({"max_states": 0}, "max_states must be a positive integer, got 0"),
    ({"max_states": -5}, "max_states must be a positive integer, got -5"),
    ({"max_states": 1.5}, "max_states must be a positive integer, got 1.5"),
    ({"max_seconds": float("nan")}, "max_seconds must be a positive finite number"),
    ({"max_seconds": -1.0}, "max_seconds must be a positive finite number"),
    ({"max_seconds": float("inf")}, "max_seconds must be a positive finite number"),
])
def test_check_api_refuses_meaningless_limits(limits, message):
    from gpuisa.pica import check

    with pytest.raises(InputError, match=message):
        check([("s.pica", PASSTHROUGH)], **limits)
    # The same source with sensible limits runs every path check (no PICA009).
    assert "PICA009" not in {f.check for f in check([("s.pica", PASSTHROUGH)],
                                                     max_states=1000, max_seconds=5)}


# -- 4: pica vectors --check on malformed results -----------------------------------------


def test_vectors_check_reports_a_malformed_pc(tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    results.write_text('{"id":"seed/inf-times-0","status":"hang","pc":"abc"}\n')
    status, out, err = _pica(capsys, "vectors", "--check", results)
    assert (status, out) == (1, "")
    assert err == f'pica: error: {results}:1: pc: expected an integer 0..4095, got "abc"\n'


@pytest.mark.parametrize(("record", "message"), [
    ({"status": "hang", "pc": "abc"}, 'pc: expected an integer 0..4095, got "abc"'),
    ({"status": "fault", "pc": 4096}, "pc: expected an integer 0..4095, got 4096"),
    ({"status": "hang", "pc": True}, "pc: expected an integer 0..4095, got true"),
    ({"status": ["ok"]}, 'status must be one of ok, hang, fault, crash, timeout, '
                         'unsupported, got ["ok"]'),
    ({"address": [1, "x", 3]}, 'address[1]: expected an integer -2147483648..2147483647, '
                               'got "x"'),
    ({"address": [1, 2]}, "address: expected a list of 3, got [1, 2]"),
    ({"cmp": "yes"}, 'cmp: expected a list of 2, got "yes"'),
    ({"cmp": [2, 0]}, "cmp[0]: expected an integer 0..1, got 2"),
    ({"primitives": [[0, 1]]}, "primitives[0]: expected a list of 4, got [0, 1]"),
    ({"primitives": [[0, 1, -2, 0]]}, "primitives[0]: expected an integer 0..65535, got -2"),
    ({"primitives": [[0, 1, 2, "x"]]}, 'primitives[0] winding: expected an integer 0..1, '
                                       'got "x"'),
    ({"primitives": 3}, "primitives: expected a list, got 3"),
    ({"vertices": [5]}, "vertices[0] must map output registers to bit patterns, got 5"),
    ({"vertices": [{"o0": [0, 0, 0]}]}, "vertices[0].o0: expected four bit patterns, got "
                                        "[0, 0, 0]"),
    ({"outputs": []}, "'outputs' must map output registers to bit patterns, got []"),
    # a long value is cut to its first 60 characters of JSON: '"0x' and 57 digits
    ({"outputs": {"o0": ["0x" + "f" * 100, 0, 0, 0]}},
     'outputs.o0: "0x' + "f" * 57 + '... (104 characters) is not a f24 bit pattern'),
    ({"semantics": {"color": []}}, "semantics.color: expected four bit patterns, got []"),
])
def test_malformed_result_fields_are_input_errors(record, message):
    from gpuisa.pica.vectors.suite_io import parse_result

    with pytest.raises(InputError) as caught:
        parse_result(record, "f24", "r.jsonl:7", ("o0",))
    assert str(caught.value) == f"r.jsonl:7: {message}"


def test_a_well_formed_result_reads_as_written():
    from gpuisa.pica.vectors.suite_io import parse_result

    got = parse_result({"outputs": {"o0": ["0x3f0000", 0, 1, "0x7f0000"]}, "cmp": [True, 0],
                        "address": [-3, 0, 255], "vertices": [{"o0": [1, 2, 3, 4]}],
                        "primitives": [[0, 0, 0, 1]]}, "f24", "r", ("o0",))
    assert got.outputs == (("o0", (0x3F0000, 0, 1, 0x7F0000)),)
    assert (got.cmp, got.address) == ((True, False), (-3, 0, 255))
    assert got.vertices == (((1, 2, 3, 4),),) and got.primitives == ((0, 0, 0, True),)
    hang = parse_result({"status": "hang", "pc": 0x1F}, "f24", "r", ("o0",))
    assert (hang.status, hang.pc) == ("hang", 0x1F)


def test_read_lines_limits_each_line(tmp_path):
    from gpuisa.datafiles import read_lines

    path = tmp_path / "lines"
    path.write_bytes(b"0123456789\n0123456789\r\n\nabc")
    assert list(read_lines(path, limit=10)) == [(1, b"0123456789"), (2, b"0123456789"),
                                                (3, b""), (4, b"abc")]
    path.write_bytes(b"ok\n01234567890\n" + b"x" * 10_000)
    lines = read_lines(path, limit=10)
    assert next(lines) == (1, b"ok")
    with pytest.raises(InputError, match=rf"^{path}:2: a line longer than 10 bytes; "
                                         "refusing to read it$"):
        next(lines)


def test_result_lines_over_the_limit_are_refused(tmp_path):
    from gpuisa.pica.vectors.suite_io import MAX_RESULT_LINE, read_results

    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "' + b"x" * MAX_RESULT_LINE + b'"}\n')
    records = read_results(str(path))
    assert next(records) == (1, {"id": "a"})
    with pytest.raises(InputError, match=r":2: a line longer than 1 MiB"):
        next(records)


def test_results_are_read_as_they_come(tmp_path):
    import threading

    from gpuisa.pica.vectors.suite_io import read_results

    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    first_seen = threading.Event()

    def write() -> None:
        with open(fifo, "w") as stream:
            stream.write('{"id": "first"}\n')
            stream.flush()
            first_seen.wait(timeout=20)  # a reader of whole files waits until here
            stream.write('{"id": "second"}\n')

    writer = threading.Thread(target=write)
    writer.start()
    records = read_results(str(fifo))
    assert next(records) == (1, {"id": "first"})
    still_writing = writer.is_alive()
    first_seen.set()
    assert list(records) == [(2, {"id": "second"})]
    writer.join()
    assert still_writing


def test_unknown_result_ids_are_counted_not_kept():
    from gpuisa.pica.vectors.check import UNKNOWN_KEPT, check

    report = check([], ((n, {"id": f"nope/{n}"}) for n in range(1, 10_001)), "f24")
    assert report.unknown_count == 10_000
    assert report.unknown == [f"nope/{n}" for n in range(1, UNKNOWN_KEPT + 1)]


# -- 9: pica trace prints as it steps; a closed pipe stops it quietly ---------------------

#: An endless loop: b0 is set, so JMPU jumps back for ever.
ENDLESS = """\
.bool b
.setb b0 true
.out opos position
.proc main
    mov r1, v0
loop:
    add r0, r0, r1
    jmpu b0, loop
    mov opos, r0
    end
.end
"""


def _first_line_then_close(argv: list[str], cwd: Path) -> tuple[bytes, int, bytes]:
    """Start ``python -m gpuisa ARGV``, read its first line of output (waiting at most
    60 s for it), close the pipe as ``| head -1`` does: (line, exit status, stderr)."""
    import select

    process = subprocess.Popen([sys.executable, "-m", "gpuisa", *argv], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, PYTHONPATH=SRC))
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        line = process.stdout.readline() if ready else b""
        process.stdout.close()
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    return line, process.returncode, err


def test_trace_prints_before_it_ends_and_stops_on_a_closed_pipe(tmp_path):
    (tmp_path / "loop.pica").write_text(ENDLESS)
    np.save(tmp_path / "in.npy", np.ones((1, 4), dtype=np.float32))
    # A million steps take minutes; the first line must come at once.
    line, status, err = _first_line_then_close(
        ["trace", "loop.pica", "--inputs", "in.npy", "--max-steps", "1000000"], tmp_path)
    assert line.split() == [b"step", b"pc", b"word", b"instruction", b"changes", b"stacks"]
    assert (status, err) == (141, b"")  # 128 + SIGPIPE, as `yes | head -1`


def test_run_into_a_closed_pipe_is_no_error(tmp_path):
    (tmp_path / "s.pica").write_text(PASSTHROUGH)
    np.save(tmp_path / "in.npy", np.ones((200_000, 4), dtype=np.float32))
    line, status, err = _first_line_then_close(["run", "s.pica", "--inputs", "in.npy"],
                                               tmp_path)
    assert line.split()[:3] == [b"vertex", b"register", b"semantic"]
    assert (status, err) == (141, b"")


def test_trace_memory_does_not_grow_with_its_length(tmp_path):
    import contextlib
    import io
    import tracemalloc

    (tmp_path / "loop.pica").write_text(ENDLESS)
    np.save(tmp_path / "in.npy", np.ones((1, 4), dtype=np.float32))

    class Lines:
        """Standard output that counts lines and keeps none."""
        count = 0

        def write(self, text: str) -> int:
            self.count += text.count("\n")
            return len(text)

        def flush(self) -> None:
            pass

    peaks = {}
    for steps in (2_000, 12_000):
        out = Lines()
        tracemalloc.start()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = pica_main(["trace", str(tmp_path / "loop.pica"), "--inputs",
                                str(tmp_path / "in.npy"), "--max-steps", str(steps)])
        peaks[steps] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert (status, out.count) == (1, steps + 1)  # the header and every step; a hang
    assert peaks[12_000] < peaks[2_000] + (2 << 20)


def test_a_long_trace_streamed_is_the_whole_trace(tmp_path, capsys):
    from gpuisa.pica import assemble
    from gpuisa.pica.engine.trace import trace

    (tmp_path / "loop.pica").write_text(ENDLESS)
    np.save(tmp_path / "in.npy", np.ones((1, 4), dtype=np.float32))
    status, out, err = _pica(capsys, "trace", tmp_path / "loop.pica", "--inputs",
                             tmp_path / "in.npy", "--max-steps", "700")
    assert status == 1 and "no END after max_steps=700 instructions" in err
    rows = [line.split(None, 3) for line in out.splitlines()]
    record = trace(assemble(ENDLESS), {"v0": np.ones((1, 4))}, max_steps=700)
    assert len(record.steps) == 700 and len(rows) == 701
    # add r0, r0, r1 at steps 2, 4, ... adds 1.0 each time: r0 = k after the k-th add
    assert "r0=(350, 350, 350, 350)" in out.splitlines()[700]
    assert [r[:3] for r in rows[1:]] == [[str(s.number), f"{s.pc:03X}", f"{s.word:08X}"]
                                         for s in record.steps]


# -- 7: the language server over raw standard input ---------------------------------------

LSP_URI = "file:///hostile/doc.pica"


def _frame(message: object) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _request(ident: object, method: str, params: object = None) -> bytes:
    return _frame({"jsonrpc": "2.0", "id": ident, "method": method,
                   **({} if params is None else {"params": params})})


def _position_request(ident: int, method: str, line: int, character: int = 0) -> bytes:
    return _request(ident, method, {"textDocument": {"uri": LSP_URI},
                                    "position": {"line": line, "character": character}})


LSP_START = (_request(1, "initialize", {"capabilities": {}})
             + _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
             + _frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                 "textDocument": {"uri": LSP_URI, "languageId": "pica", "version": 1,
                                  "text": PASSTHROUGH}}}))


def _lsp(data: bytes) -> tuple[int, dict[object, dict], str]:
    """``pica lsp`` fed ``data`` and then the end of its input: (exit status, the
    responses by id (None: the errors without one, a list), standard error)."""
    pytest.importorskip("pygls")
    done = subprocess.run([sys.executable, "-m", "gpuisa", "lsp"], input=data,
                          capture_output=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=SRC))
    responses: dict[object, object] = {None: []}
    out = done.stdout
    while out:
        head, _, rest = out.partition(b"\r\n\r\n")
        length = int(head.split(b"\r\n")[0].removeprefix(b"Content-Length: "))
        message = json.loads(rest[:length])
        out = rest[length:]
        if "method" in message:
            continue  # a notification of the server's (diagnostics, log messages)
        if message["id"] is None:
            responses[None].append(message)
        else:
            responses[message["id"]] = message
    return done.returncode, responses, done.stderr.decode()


def test_lsp_answers_requests_at_impossible_positions():
    status, responses, err = _lsp(
        LSP_START
        + _position_request(2, "textDocument/hover", -1)
        + _position_request(3, "textDocument/definition", 2**40)
        + _position_request(4, "textDocument/hover", 0, -7)
        + _position_request(5, "textDocument/hover", 2**31 - 1)  # valid, past the end
        + _position_request(6, "textDocument/hover", 2, 5)  # 'mov' of "    mov opos, v0"
        + _request(7, "shutdown") + _frame({"jsonrpc": "2.0", "method": "exit"}))
    assert status == 0, err
    for ident in (2, 3, 4):
        assert responses[ident]["error"]["code"] == -32602  # Invalid Params
        assert "result" not in responses[ident]
    assert responses[5]["result"] is None
    assert responses[6]["result"]["contents"]["value"].startswith("**mov**")
    assert responses[7]["result"] is None
    assert "Traceback" not in err


def test_lsp_answers_undecodable_messages_and_goes_on():
    status, responses, err = _lsp(
        LSP_START
        + b"Content-Length: 3\r\n\r\n{{{"  # not JSON
        + b"Content-Length: 2\r\n\r\n[]"  # not a message object
        + _frame({"jsonrpc": "1.0", "id": 8, "method": "shutdown"})
        + b"Content-Length: 8\r\n\r\n" + b"[" * 8  # nested
        + _position_request(9, "textDocument/hover", 2, 5))
    assert status == 0, err  # the input ended between messages
    codes = [r["error"]["code"] for r in responses[None]]
    assert codes == [-32700, -32600, -32700]  # Parse error, Invalid Request, Parse error
    assert responses[8]["error"]["code"] == -32600
    assert responses[9]["result"]["contents"]["value"].startswith("**mov**")


def test_lsp_exit_without_shutdown_is_status_1():
    status, _, _ = _lsp(LSP_START + _frame({"jsonrpc": "2.0", "method": "exit"}))
    assert status == 1


@pytest.mark.parametrize(("data", "reason"), [
    (b"Content-Length: 99999999999999\r\n\r\n{}",
     "a message of 99,999,999,999,999 bytes; at most 134,217,728 are read"),
    (b"Content-Length: -5\r\n\r\n{}", "Content-Length is not a byte count: b'-5'"),
    (b"Content-Type: application/vscode-jsonrpc\r\n\r\n{}",
     "a message without a Content-Length header"),
    (b"Content-Length: 500\r\n\r\n{}", "the input ended inside a message body (2 of 500 "
                                       "bytes)"),
    (b"Content-Length: 2\r\n", "the input ended inside a message header"),
    (b"x" * 100_000, "a header line longer than 8192 bytes"),
    (b"Content-Length 17\r\n\r\n", "not a message header: b'Content-Length 17'"),
], ids=["huge", "negative", "missing", "too-long", "no-body", "endless-line", "no-colon"])
def test_lsp_ends_cleanly_on_a_broken_stream(data, reason):
    status, responses, err = _lsp(LSP_START + data)
    assert status == 1
    assert err.endswith(f"pica: error: lsp: standard input: {reason}\n")
    assert "Traceback" not in err
    assert responses[None][-1]["error"]["code"] == -32700
    assert responses[1]["result"]["serverInfo"]["name"] == "pica-lsp"  # answered before


def test_lsp_ends_cleanly_on_random_bytes():
    import random

    noise = random.Random(30).randbytes(5000)
    status, responses, err = _lsp(LSP_START + noise)
    assert status in (0, 1)  # the noise may happen to end between messages
    assert "Traceback" not in err
    assert all(r["error"]["code"] in (-32700, -32600) for r in responses[None])


# -- 5: gpuisa's warnings on the command line ------------------------------------------


def test_cli_shows_gpuisa_warnings_as_its_own(capsys):
    import argparse
    import warnings

    from gpuisa.cli_support import dispatch
    from gpuisa.errors import GpuIsaWarning

    # a warning category of gpuisa's; printed even though the suite's filters make every
    # warning an error
    own = type("ExampleWarning", (GpuIsaWarning,), {})

    def handler(args):
        warnings.warn("x.bin: damaged; discarded, made again", own, stacklevel=1)
        return 0

    parser = argparse.ArgumentParser()
    parser.set_defaults(handler=handler)
    assert dispatch("pica", parser, []) == 0
    assert capsys.readouterr().err == "pica: warning: x.bin: damaged; discarded, made again\n"


# -- 6: the language server's analysis is linear in the document's length ---------------


def test_diagnostics_are_placed_without_rescanning_the_document(monkeypatch):
    """Placing a diagnostic counted the document's lines once per diagnostic (quadratic:
    9.5 s for a hover on 40,000 lines).  Counted here: every str.count of the analysis
    over a document with one error per line."""
    from gpuisa.pica.lsp import analysis

    lines = 3000
    text = ".proc main\n" + "    add r0, r1, c0\n" * lines + "    end\n.end\n"
    scanned = 0

    class Counting(str):
        def count(self, *args):  # what _place asked each diagnostic
            nonlocal scanned
            scanned += len(self)
            return str.count(self, *args)

    monkeypatch.setattr(analysis, "_findings", _counting(analysis._findings, Counting))
    result = analysis.analyse([("doc.pica", text)])
    problems = result.problems["doc.pica"]
    assert len(problems) == lines  # "add r0, r1, c0": c0 is not a valid src2, each line
    assert [p.line for p in problems] == list(range(1, lines + 1))
    assert scanned <= 2 * len(text)  # linear: not lines * len(text)


def _counting(findings, wrapper):
    def wrapped(diagnostics, texts, first):
        return findings(diagnostics, {path: wrapper(t) for path, t in texts.items()}, first)

    return wrapped


#: A program with every kind of line the index treats in context (.constfa elements
#: counting into their array, .gsh, .unit) among ordinary ones.
CONTEXT_LINES = """\
.fvec proj[4]
.constfa table[]
.constfa (1.0, 2.0, 3.0, 4.0)
.constfa (5.0, 6.0, 7.0, 8.0)
.end
.alias one table[1].xxxx
.out opos position
.proc main
    dp4 opos.x, proj[0], v0   ; first row
    mov opos.yzw, one
    end
.end
.unit second
.gsh point c0
.fvec size
.proc helper
    mov r0, size
.end
"""


def test_reanalysis_lexes_only_the_changed_lines(monkeypatch):
    from gpuisa.pica.lsp import index as index_module
    from gpuisa.pica.lsp.index import build_index

    filler = "".join(f"    add r{k % 8}, r1, r2 ; line {k}\n" for k in range(500))
    before = CONTEXT_LINES.replace("    end\n", filler + "    end\n", 1)
    after = before.replace("    add r3, r1, r2 ; line 11\n", "    add r3, r1, r4 ; line 11\n")
    assert after != before
    lexed: list[str] = []
    line_tokens = index_module._line_tokens

    def counting(line: str):
        lexed.append(line)
        return line_tokens(line)

    monkeypatch.setattr(index_module, "_line_tokens", counting)
    previous = build_index([("a.pica", before)])
    lexed.clear()
    again = build_index([("a.pica", after)], previous)
    assert lexed == ["    add r3, r1, r4 ; line 11"]  # only the edited line is lexed
    fresh = build_index([("a.pica", after)])
    assert again.occurrences == fresh.occurrences  # and the index is the same
    table = next(o for o in fresh.occurrences if o.text == "table" and o.definition)
    assert table.detail == "2"  # two .constfa elements
    size = next(o for o in fresh.occurrences if o.text == "size" and o.definition)
    assert size.unit == 1 and size.key == ("name", 1, "size")  # private: .gsh point


def test_analysis_leaves_the_cycle_collector_as_it_was():
    import gc

    from gpuisa.pica.lsp.analysis import analyse

    assert gc.isenabled()
    analyse([("a.pica", CONTEXT_LINES)])
    assert gc.isenabled()
    gc.disable()
    try:
        analyse([("a.pica", CONTEXT_LINES)])
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- '-' is standard input for the file arguments ---------------------------------------


@pytest.fixture
def stdin(monkeypatch):
    """Set what standard input holds: ``stdin(b"...")``."""
    import io

    def give(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return give


def test_asm_disasm_and_check_read_standard_input(stdin, capsys, tmp_path):
    from gpuisa.pica import assemble

    stdin(PASSTHROUGH.encode())
    out = tmp_path / "s.shbin"
    assert _pica(capsys, "asm", "-o", out, "-")[0] == 0
    assert out.read_bytes() == assemble(PASSTHROUGH).to_bytes()
    stdin(out.read_bytes())
    status, text, _ = _pica(capsys, "disasm", "-")
    assert status == 0 and "mov o0, v0" in text
    stdin(b".proc main\n    mov r0, r5\n.end\n")
    status, out, _ = _pica(capsys, "check", "-", "--disable", "PICA604")
    assert status == 1  # PICA305: 'main' never executes 'end'
    assert out.startswith("-:1:7: error: entry point 'main' contains no 'end' instruction")


@pytest.mark.parametrize(("data", "expected"), [
    (json.dumps({"v0": [[1, 2, 3, 4]]}).encode(), [[1, 2, 3, 4]]),
    (b"v0.x,v0.y,v0.z,v0.w\n5,6,7,8\n", [[5, 6, 7, 8]]),
    ("npy", [[9, 9, 9, 9], [9, 9, 9, 9]]),
    ("npz", [[7, 7, 7, 7]]),
])
def test_run_inputs_from_standard_input_of_each_type(stdin, capsys, tmp_path, data,
                                                     expected):
    import io

    if data in ("npy", "npz"):
        stream = io.BytesIO()
        if data == "npy":
            np.save(stream, np.full((2, 4), 9, np.float32))
        else:
            np.savez(stream, v0=np.full((1, 4), 7, np.float32))
        data = stream.getvalue()
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    stdin(data)
    status, out, err = _pica(capsys, "run", shader, "--inputs", "-", "--format", "json")
    assert status == 0, err
    assert json.loads(out)["outputs"]["o0"] == expected


def test_vectors_check_reads_standard_input(stdin, capsys):
    stdin(b'{"id":"seed/inf-times-0","status":"hang","pc":"abc"}\n')
    status, _, err = _pica(capsys, "vectors", "--check", "-")
    assert status == 1
    assert err == 'pica: error: -:1: pc: expected an integer 0..4095, got "abc"\n'


def test_a_mesh_is_not_read_from_standard_input(stdin, capsys, tmp_path):
    pytest.importorskip("trimesh")
    shader = tmp_path / "s.pica"
    shader.write_text(PASSTHROUGH)
    stdin(b"ply\n")
    status, _, err = _pica(capsys, "render", shader, "--mesh", "-", "-o", tmp_path / "o.png")
    assert status == 1 and err.startswith("pica: error: --mesh: a mesh is read from a file")


def test_a2xx_reads_standard_input(stdin, capsys):
    from gpuisa.a2xx import assemble as a2xx_assemble
    from gpuisa.a2xx.cli import main as a2xx_main

    source = "EXEC_END ADDR(0x1) CNT(0x1)\n      ALU:\tMAXv\texport62 = R0, R0\n"
    stdin(source.encode())
    assert a2xx_main(["asm", "--hex", "-"]) == 0
    words = [int(w, 16) for w in capsys.readouterr().out.split()]
    assert words == list(a2xx_assemble(source))
