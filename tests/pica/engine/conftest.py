"""Fixtures shared by the engine tests.

``engine`` parametrizes every test that runs shader code over every engine: the
reference engine and the compiled engine (LLVM kernels).  One suite, the same
assertions for both.
"""

import pytest

ENGINE_NAMES = ["reference", "jit"]


@pytest.fixture(params=ENGINE_NAMES)
def engine(request):
    return request.param
