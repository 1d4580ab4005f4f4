"""Tests that need ../shared skip in a checkout without it, and fail under CI=true."""

from __future__ import annotations

from pathlib import Path

import pytest
from samples import require_shared


def test_missing_shared_data_skips_locally_and_fails_under_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "shared" / "benchmarks"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="shared data missing"):
        require_shared(missing)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        require_shared(missing)
    require_shared(tmp_path)
