import pytest

from gpuisa.pica import vectors


@pytest.fixture(scope="session")
def suite():
    return vectors.build_suite()


@pytest.fixture(scope="session")
def truncating_suite():
    """The suite made with the truncating float24 rounding (pica vectors --rounding
    truncate)."""
    return vectors.build_suite(rounding="truncate")


@pytest.fixture(scope="session")
def by_id(suite):
    return {case.id: case for case in suite}
