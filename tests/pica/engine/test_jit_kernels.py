"""The compiled engine's kernels beyond their results (those are checked by
:mod:`test_differential`): the disk cache, the registers a kernel may touch, and
``engine="auto"`` taking a kernel compiled in this process."""

import itertools
import os

import numpy as np
import pytest

pytest.importorskip("numba")

import differential as D

from gpuisa.pica import Program
from gpuisa.pica.encoding import Instruction, OperandDescriptor, encode, encode_opdesc
from gpuisa.pica.engine import choice, run
from gpuisa.pica.engine.api import executable, initial_state
from gpuisa.pica.engine.compiled import runner as jit
from gpuisa.pica.engine.compiled.kernels import compile_source, on_disk
from gpuisa.pica.engine.decode import decode_program

#: These tests are about Numba's vertex kernels (conftest).
pytestmark = pytest.mark.usefixtures("numba_vertex_kernels")


def test_kernels_are_cached_on_disk(monkeypatch, tmp_path):
    """A compiled kernel is found again through the cache directory once the process has
    forgotten it, and ``jit.ready`` says so (the rule for engine="auto")."""
    monkeypatch.setenv("GPUISA_JIT_CACHE", str(tmp_path))
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(jit, "_sources", type(jit._sources)())
    xyzw = encode_opdesc(OperandDescriptor(15, (False, False, False), (0x1B, 0x1B, 0x1B)))
    program = Program([encode(Instruction.make("add", dst=0, src1=0x20, src2=0, desc=0)),
                       encode(Instruction.make("end"))], [xyzw])  # add o0, c0, v0
    decoded = decode_program(program)
    args = dict(inputs={"v0": np.array([[1.0, -2.0, 0.5, 3.0]] * 3)},
                uniforms={"c0": [0.25, 0.25, -0.5, 1.0]})
    state = lambda: initial_state(executable(program), args["inputs"],  # noqa: E731
                                  uniforms=args["uniforms"], precision="f24")
    assert not jit.ready(decoded, state(), 0, "f24")
    monkeypatch.setattr(jit, "KERNELS", "always")
    first = run(program, args["inputs"], uniforms=args["uniforms"], engine="jit", registers=True)
    assert first.outputs["o0"].tolist() == [[1.25, -1.75, 0.0, 4.0]] * 3
    assert list(tmp_path.glob("pica_kernel_*.py"))
    jit._cache.clear()
    monkeypatch.setattr(jit, "KERNELS", "cost")
    assert jit.ready(decoded, state(), 0, "f24")
    # 3 lanes with the interpreter loaded: interpreting costs less than loading the
    # kernel ...
    monkeypatch.setattr(choice, "interpreter_kept", lambda: choice.Kept.PROCESS)
    again = run(program, args["inputs"], uniforms=args["uniforms"], engine="jit", registers=True)
    assert again.outputs["o0"].tolist() == first.outputs["o0"].tolist()
    assert not jit._cache
    # ... unless loading were free: then it is loaded from the disk, not compiled
    monkeypatch.setattr(choice, "LOAD_KERNEL", 0.0)

    def load(source):
        assert on_disk(source), "the kernel would be compiled again"
        return compile_source(source)

    monkeypatch.setattr(jit, "_compile", load)
    again = run(program, args["inputs"], uniforms=args["uniforms"], engine="jit", registers=True)
    assert again.outputs["o0"].tolist() == first.outputs["o0"].tolist()
    assert jit._cache


def test_kernels_touch_only_the_registers_the_analysis_names():
    """Kernels get stand-in arrays of no lanes for the registers outside
    ``Analysis.registers``, and for the address registers and flags of kernels that say
    they do not use them (Numba does not check bounds): the generated kernels and the
    interpreter's register rows must never touch another one."""
    from gpuisa.pica.engine.compiled import interpreter as jit_interp
    from gpuisa.pica.engine.compiled.codegen import _Generator, analyse

    base = {"v": 0, "r": 16, "o": 32}
    for seed in range(160):
        found = D.case(seed, D.PROFILES[seed % len(D.PROFILES)])
        decoded = decode_program(found.shbin().program)
        analysis = analyse(decoded)
        named = {base[bank] + number for bank, number in analysis.registers}
        rows, written = jit_interp.register_rows(decoded)
        assert set(rows.tolist()) == named, seed
        assert set(written.tolist()) <= named, seed
        for precision in ("f24", "f32"):
            generator = _Generator(decoded, analysis, (0,), precision, frozenset())
            source = generator.kernel()
            # ... and no address registers / flags when it gets stand-ins for them
            assert source.address or "address[" not in source.source, seed
            assert source.flags or "cmp[" not in source.source, seed
            touched = generator.used_regs | generator.written_regs | set(generator.rows or {})
            assert touched <= analysis.registers, seed


def test_auto_takes_the_jit_for_one_vertex_once_its_kernel_is_compiled(monkeypatch):
    """engine="auto" runs a small input on the JIT only when this process has compiled
    the kernel already (then it beats the reference engine even for one vertex)."""
    from gpuisa.pica.engine import api, choice

    program = Program((0x08020000, 0x88000000), (0x0006C368,))  # dp4 o0.x, v0, c0 ... end
    inputs = {"v0": np.ones((1, 4), dtype=np.float32)}
    uniforms = {"c0": [1.0, 2.0, 3.0, 4.0]}
    chosen: list[str] = []
    real = api.choose_engine

    def spy(engine, lanes, warm=None):
        name = real(engine, lanes, warm)
        if warm is not None:  # the choice of the engine that runs the vertices
            chosen.append(name)
        return name

    monkeypatch.setattr(api, "choose_engine", spy)
    # nothing compiled yet, the interpreter not loaded (another test may have run it in
    # this process: then it would rightly win), no reference time spent on the program
    monkeypatch.setattr(jit, "_cache", type(jit._cache)())
    monkeypatch.setattr(choice, "interpreter_kept", lambda: choice.Kept.NONE)
    monkeypatch.setattr(choice, "_spent", type(choice._spent)())
    first = api.run(program, inputs, uniforms=uniforms, registers=True)
    # a large run on the compiled engine, made to compile the program's kernel (by cost
    # it would interpret: compiling pays only over many such runs)
    monkeypatch.setattr(jit, "KERNELS", "always")
    api.run(program, {"v0": np.ones((10**6, 4), dtype=np.float32)}, uniforms=uniforms)
    monkeypatch.setattr(jit, "KERNELS", "cost")
    again = api.run(program, inputs, uniforms=uniforms, registers=True)
    assert chosen == ["reference", "jit", "jit"]
    # 1*1 + 1*2 + 1*3 + 1*4 = 10, exact in float24
    assert first.outputs["o0"][0, 0] == again.outputs["o0"][0, 0] == 10.0


def test_the_cache_directory_drops_what_other_sources_made(monkeypatch, tmp_path):
    """The first use of a cache directory in a process deletes the generated files (and
    Numba's code for them) whose names carry another fingerprint, old unnamed ones
    included, and keeps this version's and everything not gpuisa's."""
    from gpuisa.pica.engine.compiled import kernels
    from gpuisa.pica.engine.compiled.cache import FINGERPRINT

    monkeypatch.setenv("GPUISA_JIT_CACHE", str(tmp_path))
    monkeypatch.setattr(kernels, "_checked", set())
    current = kernels.generated_name("kernel", "def kernel(): pass\n")
    assert current.startswith(f"pica_kernel_{FINGERPRINT[:8]}_")
    stale = ["pica_kernel_deadbeef_0123456789abcdef01234567.py",
             "pica_alu_0123abcd_0123456789abcdef01234567.py",
             "pica_kernel_0123456789abcdef0123456789abcdef.py"]  # before fingerprints
    compiled = tmp_path / "__pycache__"
    compiled.mkdir()
    for name in [*stale, current, "notes.txt"]:
        (tmp_path / name).write_text("x")
    (compiled / f"{stale[0][:-3]}.kernel-9.py311.nbi").write_text("x")
    (compiled / f"{current[:-3]}.kernel-9.py311.nbi").write_text("x")
    assert kernels.cache_directory() == str(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(["__pycache__", current, "notes.txt", "fingerprint"])
    assert [p.name for p in compiled.iterdir()] == [f"{current[:-3]}.kernel-9.py311.nbi"]
    assert (tmp_path / "fingerprint").read_text() == FINGERPRINT
    # the marker says this version cleaned up: a later process lists nothing
    monkeypatch.setattr(kernels, "_checked", set())
    (tmp_path / stale[0]).write_text("x")
    monkeypatch.setattr(kernels.os, "listdir", lambda folder: 1 / 0)
    kernels.cache_directory()
    assert (tmp_path / stale[0]).exists()


def test_work_is_split_into_ranges_taken_in_turn(monkeypatch):
    """in_parallel covers 0 .. count with ranges of at least ``minimum`` (a few per
    thread), each run once, results in range order; a range's error reaches the caller
    after every thread has stopped."""
    import threading

    monkeypatch.setattr(jit, "_threads", lambda: 2)
    seen = []
    lock = threading.Lock()

    def work(lo, hi):
        with lock:
            seen.append((lo, hi))
        return lo, hi

    ranges = jit.in_parallel(work, 100_000, 1_000)
    assert len(ranges) == 8  # 2 threads x 4 ranges
    assert ranges[0][0] == 0 and ranges[-1][1] == 100_000
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert all(hi - lo >= 1_000 for lo, hi in ranges) and sorted(seen) == ranges
    assert jit.in_parallel(work, 1_500, 1_000) == [(0, 1_500)]  # too few for two

    def failing(lo, hi):
        if lo > 0:
            raise ValueError(lo)
        return lo

    with pytest.raises(ValueError):
        jit.in_parallel(failing, 100_000, 1_000)


def test_kernels_are_found_where_numba_caches_them(tmp_path):
    """With $NUMBA_CACHE_DIR set, Numba keeps compiled code there instead of beside the
    generated file; ``ready`` still finds a compiled kernel (a fresh process: Numba reads
    the variable when imported)."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from gpuisa.pica import Program\n"
        "from gpuisa.pica.engine import run\n"
        "from gpuisa.pica.engine.api import executable, initial_state\n"
        "from gpuisa.pica.engine.compiled import runner as jit\n"
        "jit.NATIVE = False\n"
        "from gpuisa.pica.engine.decode import decode_program\n"
        "program = Program((0x08020000, 0x88000000), (0x0006C368,))\n"
        "inputs, uniforms = {'v0': np.ones((3, 4))}, {'c0': [1.0] * 4}\n"
        "state = initial_state(executable(program), inputs, uniforms=uniforms,"
        " precision='f24')\n"
        "decoded = decode_program(program)\n"
        "before = jit.ready(decoded, state, 0, 'f24')\n"
        "jit.KERNELS = 'always'\n"
        "run(program, inputs, uniforms=uniforms, engine='jit')\n"
        "jit._cache.clear()\n"
        "print(before, jit.ready(decoded, state, 0, 'f24'))\n")
    env = dict(os.environ, GPUISA_JIT_CACHE=str(tmp_path / "kernels"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.stdout.split() == ["False", "True"], done.stderr
    assert list((tmp_path / "numba").glob("*/pica_kernel_*.nbi"))
    assert not (tmp_path / "kernels" / "__pycache__").exists()


def test_looking_for_a_kernel_needs_no_abi_flags(monkeypatch):
    """sys.abiflags does not exist on Windows before Python 3.14: Numba's cache names
    then carry none, and looking for a kernel must not fail."""
    import sys

    monkeypatch.delattr(sys, "abiflags", raising=False)
    assert on_disk("def kernel(lo, hi):\n    pass\n") in (False, True)


def test_work_does_not_wait_for_a_busy_pool(monkeypatch):
    """When the pool's threads are busy with another caller's work, the calling thread
    does every range itself and returns without waiting for them."""
    import threading
    import time

    monkeypatch.setattr(jit, "_threads", lambda: 2)
    release = threading.Event()
    busy = jit._executor().submit(release.wait, 30)  # the pool's worker(s) kept busy
    blockers = [jit._executor().submit(release.wait, 30) for _ in range(3)]
    try:
        start = time.perf_counter()
        ranges = jit.in_parallel(lambda lo, hi: (lo, hi), 100_000, 1_000)
        assert time.perf_counter() - start < 5
        assert ranges[0][0] == 0 and ranges[-1][1] == 100_000 and len(ranges) == 8
    finally:
        release.set()
        busy.result()
        for blocker in blockers:
            blocker.result()
