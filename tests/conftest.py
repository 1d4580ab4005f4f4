"""Markers shared by the test modules (see `samples.py`)."""

from __future__ import annotations

import pytest
from samples import require_shared


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_shared(*paths): skip without ../shared data, fail under CI=true")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs_shared"):
        require_shared(*mark.args)
