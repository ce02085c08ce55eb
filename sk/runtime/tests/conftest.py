"""Shared fixtures of the twin runtime's Python tests."""

import pytest

from sk.twin import binding as twin


@pytest.fixture(scope="session")
def runtime_lib():
    """libskrt.so, built once per build dir (see sk.twin.binding.default_build_dir)."""
    return twin.build_runtime(twin.default_build_dir())


@pytest.fixture(scope="session")
def runtime(runtime_lib):
    return twin.Twin(runtime_lib)
