import pytest

from gpuisa.pica import vectors


@pytest.fixture(scope="session")
def suite():
    return vectors.build_suite()


@pytest.fixture(scope="session")
def by_id(suite):
    return {case.id: case for case in suite}
