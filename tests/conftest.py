"""Markers and session fixtures shared by the test modules (see `samples.py`)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import NamedTuple

import pytest
from samples import copy_sample, require_shared

from veritrail_graphrag.audit import AuditOptions, run_target
from veritrail_graphrag.audit.targets import graphrag_query_target
from veritrail_graphrag.dag import DAG
from veritrail_graphrag.report import AuditReport


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_shared(*paths): skip without ../shared data, fail under CI=true")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("needs_shared"):
        require_shared(*mark.args)


class AuditedSample(NamedTuple):
    """The bundled GraphRAG sample audited once per session: the in-memory report, the DAG it
    read and the folder holding report.json, report.md, report.html and the parquet tables."""

    report: AuditReport
    dag: DAG
    folder: Path


@pytest.fixture(scope="session")
def audited_sample(tmp_path_factory: pytest.TempPathFactory) -> AuditedSample:
    root = copy_sample("graphrag-christmas-carol", tmp_path_factory.mktemp("audited") / "carol")
    target = graphrag_query_target(root)
    report = asyncio.run(run_target(target, AuditOptions()))
    return AuditedSample(report, target.dag, target.out_dir)
