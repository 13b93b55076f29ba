"""Fixtures shared by the A2XX tests."""

from __future__ import annotations

import pytest

from gpuisa.a2xx.vectors import build_suite


@pytest.fixture(scope="session")
def vectors_suite():
    """The conformance suite, built once per test session (a few seconds)."""
    return build_suite()
