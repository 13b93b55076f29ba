"""Fixtures shared by the engine tests.

``engine`` parametrizes every test that runs shader code over every engine: the
reference engine and the compiled (Numba) engine, skipped if Numba is missing.  One
suite, the same assertions for all of them.
"""

import importlib
import importlib.util

import pytest


def _jit_available() -> bool:
    if importlib.util.find_spec("numba") is None:
        return False
    try:
        importlib.import_module("gpuisa.pica.engine.compiled.runner")
    except ImportError:
        return False
    from gpuisa.pica.engine import ENGINES

    return "jit" in ENGINES


JIT = pytest.param("jit", marks=pytest.mark.skipif(
    not _jit_available(), reason="needs numba and gpuisa.pica.engine.compiled.runner"))
ENGINE_NAMES = ["reference", JIT]


@pytest.fixture(params=ENGINE_NAMES)
def engine(request):
    return request.param


@pytest.fixture
def numba_vertex_kernels(monkeypatch):
    """Vertex shaders run on Numba's kernels and interpreter kernel (the engine's
    previous realisation, kept until the LLVM kernels run geometry shaders too), not on
    the LLVM kernels of ``compiled.native``."""
    from gpuisa.pica.engine.compiled import runner

    monkeypatch.setattr(runner, "NATIVE", False)
