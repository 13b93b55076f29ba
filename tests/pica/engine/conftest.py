"""Fixtures shared by the engine tests.

``engine`` parametrizes every test that runs shader code over the available engines; the
batch engine (next issue) adds its name to the params list.
"""

import pytest


@pytest.fixture(params=["reference"])
def engine(request):
    return request.param
