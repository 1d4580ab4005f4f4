"""`veritrail compare` end to end on audits of the bundled GraphRAG sample."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from samples import copy_sample
from typer.testing import CliRunner

import veritrail_graphrag.cli as cli
from veritrail_graphrag.errors import ReportError
from veritrail_graphrag.report import AuditReport

runner = CliRunner()
COMMUNITIES = ["--community", "88", "--community", "90", "--community", "92"]
INVENTED = (
    " Scrooge owned a fleet of steamships that sailed from Liverpool to Boston every winter."
    " The Cratchit family emigrated to Canada in 1850 and opened a bakery there."
    " Marley's ghost was exorcised by a bishop from York on Boxing Day."
    " Fezziwig sold his warehouse to a railway company for nine thousand pounds."
    " The Spirit of Christmas Yet to Come was revealed to be Scrooge's own brother."
)


def _audit(root: Path) -> Path:
    result = runner.invoke(cli.app, ["audit-index", str(root), *COMMUNITIES])
    assert result.exit_code == 0, result.output
    return root / "output" / "veritrail" / "index-audit-communities-88-90-92" / "report.json"


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The sample as indexed, and the same index with invented sentences added to one report."""
    base = tmp_path_factory.mktemp("versions")
    original = copy_sample("graphrag-christmas-carol", base / "original")
    altered = copy_sample("graphrag-christmas-carol", base / "altered")
    table = altered / "output" / "community_reports.parquet"
    reports = pd.read_parquet(table)
    row = reports.index[reports["community"] == 88][0]
    reports.loc[row, "full_content"] = reports.loc[row, "full_content"] + "\n\n" + INVENTED.strip()
    reports.to_parquet(table)
    return _audit(original), _audit(altered)


def test_an_altered_community_report_moves_the_report_stage_beyond_noise(
    two_versions: tuple[Path, Path], tmp_path: Path
) -> None:
    original, altered = two_versions
    result = runner.invoke(
        cli.app,
        ["compare", str(original.parent), str(altered), "--labels", "as indexed,altered", "--out", str(tmp_path)],
    )
    assert result.exit_code == 0, result.output
    comparison = json.loads((tmp_path / "compare.json").read_text())
    before, after = comparison["audits"]
    assert after["claims"] == before["claims"] + 5  # the five invented sentences are new claims
    # the offline verifier flags at least four of the five at the report stage, among them the two
    # naming a place none of the report's inputs holds, with little else of the claim there either
    assert after["verdicts"]["Not Fully Supported"] >= before["verdicts"]["Not Fully Supported"] + 4
    stage4 = [next(r for r in audit["stages"] if r["stage"] == 4) for audit in (before, after)]
    assert stage4[1]["flagged"] >= stage4[0]["flagged"] + 4
    [pair] = comparison["pairs"]
    assert pair["matched"] == before["claims"] and pair["matched_by"] == "terminal and text"
    assert not pair["flipped"] and not pair["warning"]  # the other claims kept their verdicts
    assert 0 <= pair["js_low"] <= pair["js_divergence"] <= pair["js_high"]
    markdown = (tmp_path / "compare.md").read_text()
    assert "| as indexed |" in markdown and "![error-stage rates](compare.png)" in markdown
    assert (tmp_path / "compare.png").read_bytes().startswith(b"\x89PNG")


def test_groups_pool_runs_and_a_different_judge_is_a_loud_warning(
    two_versions: tuple[Path, Path], tmp_path: Path
) -> None:
    original, altered = two_versions
    judged_otherwise = tmp_path / "other" / "report.json"
    judged_otherwise.parent.mkdir()
    data = json.loads(altered.read_text())
    [(name, settings)] = data["verifier_settings"].items()
    data["verifier_settings"] = {name: {**settings, "threshold": 0.99}}
    judged_otherwise.write_text(json.dumps(data))
    result = runner.invoke(
        cli.app,
        ["compare", "--group", f"both={original},{altered}", str(judged_otherwise), "--out", str(tmp_path / "out")],
    )
    assert result.exit_code == 0, result.output
    comparison = json.loads((tmp_path / "out" / "compare.json").read_text())
    assert [a["label"] for a in comparison["audits"]] == ["other", "both"]  # positional audits, then groups
    pooled = comparison["audits"][1]
    assert pooled["claims"] == sum(len(json.loads(p.read_text())["results"]) for p in (original, altered))
    assert comparison["warnings"] and "different verifiers or settings" in comparison["warnings"][0]
    assert "Warning:" in (tmp_path / "out" / "compare.md").read_text()
    assert "different verifiers or settings" in result.output.replace("\n", " ")


def test_bad_input_is_named(tmp_path: Path, two_versions: tuple[Path, Path]) -> None:
    original, _ = two_versions
    missing = runner.invoke(cli.app, ["compare", str(original), str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "nope: no such file or folder" in missing.output
    alone = runner.invoke(cli.app, ["compare", str(original)])
    assert alone.exit_code == 2 and "at least two audits" in alone.output
    labels = runner.invoke(cli.app, ["compare", str(original), str(original), "--labels", "x"])
    assert labels.exit_code == 2 and "--labels names 1 audits but 2" in labels.output
    same = runner.invoke(cli.app, ["compare", str(original), str(original)])
    assert same.exit_code == 2 and "tell them apart with --labels" in same.output


def test_a_report_the_reader_refuses_is_refused_by_compare_too(tmp_path: Path, two_versions: tuple[Path, Path]) -> None:
    original, altered = two_versions
    edited = tmp_path / "edited" / "report.json"
    edited.parent.mkdir()
    data = json.loads(altered.read_text())
    data["results"][0]["verdict"] = "Totally Supported"
    edited.write_text(json.dumps(data))
    with pytest.raises(ReportError) as refused:
        AuditReport.load(edited)
    result = runner.invoke(cli.app, ["compare", str(original), str(edited), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert str(refused.value) in result.output.replace("\n", "") and "results.0.verdict" in str(refused.value)
    assert not (tmp_path / "out").exists()  # nothing counted, nothing written


def test_an_80_column_terminal_folds_no_word_into_letters(tmp_path: Path, two_versions: tuple[Path, Path]) -> None:
    from rich.console import Console

    from veritrail_graphrag.compare.audits import load_audit
    from veritrail_graphrag.compare.compute import compare
    from veritrail_graphrag.compare.render import tables

    comparison = compare([load_audit(p) for p in two_versions])
    screen = Console(width=80, record=True)
    for table in tables(comparison, 80):
        screen.print(table)
    text = screen.export_text()
    assert max(map(len, text.splitlines())) <= 80
    words = set(text.split())
    assert {"facts", "verifier", "claims", "no"} <= words and "calls" in words  # whole, one per line


def test_fail_on_regression_passes_two_audits_of_one_index(tmp_path: Path, two_versions: tuple[Path, Path]) -> None:
    """The offline verifier gives one index the same verdicts every time: the audit, copied, is the second."""
    original, _ = two_versions
    shutil.copytree(original.parent, tmp_path / "again")
    args = ["compare", str(original), str(tmp_path / "again"), "--labels", "first,second", "--out", str(tmp_path / "c")]
    result = runner.invoke(cli.app, [*args, "--fail-on-regression"])
    assert result.exit_code == 0, result.output
    [pair] = json.loads((tmp_path / "c" / "compare.json").read_text())["pairs"]
    assert pair["nfs_p_value"] == 1.0 and not pair["flipped"]


def test_fail_on_regression_fails_a_significant_rise_and_names_the_stage(
    tmp_path: Path, two_versions: tuple[Path, Path]
) -> None:
    """The newer audit as if its verifier had flagged every claim it found supported, at stage 4."""
    original, _ = two_versions
    worse = tmp_path / "worse" / "report.json"
    worse.parent.mkdir()
    data = json.loads(original.read_text())
    supported = [r for r in data["results"] if r["verdict"] == "Fully Supported"]
    for record in supported:
        record.update(verdict="Not Fully Supported", error_stages=[4])
    worse.write_text(json.dumps(data))
    args = ["compare", str(original), str(worse), "--labels", "old,new", "--out", str(tmp_path / "c")]
    result = runner.invoke(cli.app, [*args, "--fail-on-regression"])
    assert result.exit_code == 1, result.output
    said = " ".join(result.stderr.split())
    assert said.startswith("Gate: regression: Not Fully Supported in ") and "of new, against " in said
    assert "Fisher's exact test p = 0.0000 < 0.05" in said and "rose most at stage 4 (" in said
    assert (tmp_path / "c" / "compare.json").is_file()  # written before the gate fails
    assert runner.invoke(cli.app, args).exit_code == 0  # no gate, no failure
    backwards = runner.invoke(cli.app, ["compare", str(worse), str(original), "--labels", "old,new",
                                        "--fail-on-regression", "--out", str(tmp_path / "d")])  # fmt: skip
    assert backwards.exit_code == 0, backwards.output  # fewer flags is no regression
    three = runner.invoke(cli.app, ["compare", str(original), str(worse), str(worse.parent), "--labels", "a,b,c",
                                    "--fail-on-regression", "--out", str(tmp_path / "e")])  # fmt: skip
    assert three.exit_code == 2 and "--fail-on-regression compares two audits, the old then the new; 3" in three.output
    assert not (tmp_path / "e").exists()
