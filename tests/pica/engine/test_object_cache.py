"""The LLVM kernels' machine code kept on disk (``compiled.objectcache``): another
process loads it instead of compiling; damage, a folder that cannot be written, a full
disk and two processes compiling at once still give the reference engine's results
(a warning at most)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gpuisa.pica.asm import assemble
from gpuisa.pica.engine import run
from gpuisa.pica.engine.compiled import native, nativerun, objectcache

SOURCE = """
.fvec m[4]
.in pos
.out opos position
.proc main
    dp4 opos.x, m[0], pos
    dp4 opos.y, m[1], pos
    dp4 opos.z, m[2], pos
    dp4 opos.w, m[3], pos
    end
.end
"""
MATRIX = [[2.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0],
          [0.0, 0.0, 0.0, 1.0]]
POSITIONS = np.array([[1.0, 2.0, 3.0, 1.0], [-4.0, 8.0, 0.25, 1.0]] * 20, np.float32)
# MATRIX @ p by hand: (2x + 1, y / 2, -z, 1), exact in float24
EXPECTED = np.array([[3.0, 1.0, -3.0, 1.0], [-7.0, 4.0, -0.25, 1.0]] * 20, np.float32)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder, no kernel of this process remembered."""
    monkeypatch.setenv("GPUISA_JIT_CACHE", str(tmp_path))
    _forget()
    yield tmp_path / "llvm"
    _forget()


def _forget() -> None:
    nativerun._kernels._items.clear()
    nativerun._current.clear()


def _run() -> np.ndarray:
    shbin = assemble([("cached.v.pica", SOURCE)])
    result = run(shbin, {"pos": POSITIONS}, uniforms={"m": MATRIX}, engine="jit")
    return np.asarray(result.outputs["o0"])


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.o"))


def test_a_kernel_compiled_once_is_loaded_afterwards(cache, monkeypatch):
    assert np.array_equal(_run(), EXPECTED)
    written = _files(cache)
    assert written  # the kernel (and the input loader's)
    _forget()

    def never(*args, **kwargs):
        raise AssertionError("the kernel was built again instead of loaded")

    monkeypatch.setattr(native, "build_module", never)
    assert np.array_equal(_run(), EXPECTED)
    assert _files(cache) == written


def test_a_damaged_file_is_discarded_with_a_warning_and_made_again(cache):
    _run()
    files = _files(cache)
    for path in files:  # every kind of damage: a flipped byte, a cut file, nothing
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF
        path.write_bytes(bytes(data))
    files[0].write_bytes(b"")
    _forget()
    with pytest.warns(objectcache.DamagedCacheWarning, match="damaged"):
        assert np.array_equal(_run(), EXPECTED)
    for path in _files(cache):
        data = path.read_bytes()
        assert data.startswith(objectcache.MAGIC) and len(data) > 100


def test_a_folder_that_cannot_be_made_means_compiling_in_each_process(tmp_path, cache,
                                                                       monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("GPUISA_JIT_CACHE", str(blocked / "cache"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(_run(), EXPECTED)
    assert objectcache.folder() is None


def test_a_full_disk_leaves_no_file_behind(cache, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(objectcache.os, "replace", full)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(_run(), EXPECTED)
    assert list(cache.iterdir()) == []  # neither kernels nor temporary files


def test_the_oldest_files_go_beyond_the_limit(cache, monkeypatch):
    cache.mkdir(parents=True)
    for k in range(5):
        path = cache / f"{k:040x}.o"
        path.write_bytes(b"old")
        os.utime(path, (k, k))
    monkeypatch.setattr(objectcache, "KEEP", 4)
    _run()  # writes the kernel (and the input loader's, if this process has none yet)
    old = [f"{k:040x}.o" for k in range(5)]  # oldest first
    names = {path.name for path in _files(cache)}
    written = names - set(old)
    assert len(names) == 4 and written
    assert names - written == set(old[len(old) - (4 - len(written)):])


_CHILD = f"""
import numpy as np
from gpuisa.pica.asm import assemble
from gpuisa.pica.engine import run
shbin = assemble([("cached.v.pica", {SOURCE!r})])
positions = np.array({POSITIONS.tolist()!r}, np.float32)
out = run(shbin, {{"pos": positions}}, uniforms={{"m": {MATRIX!r}}}, engine="jit")
print(np.asarray(out.outputs["o0"]).tobytes().hex())
"""


def test_two_processes_compiling_the_same_shader_at_once(cache):
    environment = dict(os.environ, GPUISA_JIT_CACHE=str(cache.parent))
    children = [subprocess.Popen([sys.executable, "-c", _CHILD], env=environment,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)]
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        assert "Warning" not in err
        assert bytes.fromhex(out.strip()) == EXPECTED.tobytes()
    assert not [path for path in cache.iterdir() if path.suffix != ".o"]


def test_a_new_process_starts_on_the_optimised_kernel_another_one_kept(cache, monkeypatch):
    """Runs long enough for the optimising code generator leave its code on disk; a new
    process (nothing remembered) runs on that code from its first run, compiling
    nothing, and gets the same results."""
    from gpuisa.pica.engine.compiled import llvmjit

    monkeypatch.setattr(nativerun, "UPGRADE_AFTER", 0.0)  # a process that ran it long
    _run()
    assert {k[-1] for k in nativerun._kernels._items} == {llvmjit.OPTIMISED}
    _forget()
    monkeypatch.setattr(nativerun, "UPGRADE_AFTER", 1e9)
    monkeypatch.setattr(native, "build_module", lambda *a, **k: pytest.fail("compiled"))
    assert np.array_equal(_run(), EXPECTED)
    assert {k[-1] for k in nativerun._kernels._items} == {llvmjit.OPTIMISED}


def test_without_an_optimised_kernel_on_disk_the_first_run_compiles_quickly(cache):
    from gpuisa.pica.engine.compiled import llvmjit

    assert np.array_equal(_run(), EXPECTED)
    assert {k[-1] for k in nativerun._kernels._items} == {llvmjit.QUICK}
