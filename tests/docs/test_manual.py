"""The manual (`mkdocs.yml`, `docs/`) against the tool: it builds without a warning, and every
command and every option of the command line is documented in it.

The build is `mkdocs build --strict`, so a broken link or anchor, a page left out of the nav, or an
API reference to a name the code no longer has fails here rather than on a reader's screen. The
commands and options are read from the typer app itself, so a new option is undocumented until a
page names it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from veritrail_graphrag.cli import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SHARED_OPTIONS_PAGE = DOCS / "options.md"


def _require_docs_extra() -> None:
    """The `docs` extra is in the README's test command; a checkout without it skips, CI fails."""
    if importlib.util.find_spec("mkdocs") is not None:
        return
    message = "mkdocs is not installed: pip install -e '.[docs]'"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def _pages() -> dict[Path, str]:
    return {page: page.read_text(encoding="utf-8") for page in sorted(DOCS.rglob("*.md"))}


def _commands() -> dict[str, Any]:
    group = typer.main.get_command(app)
    context = group.context_class(group)
    return {name: group.get_command(context, name) for name in group.list_commands(context)}


def _option_names(command: Any) -> list[tuple[str, ...]]:
    """Each option of the command as all the names `--help` shows for it (`--target`/`--default-target`,
    `--resume/--no-resume`); `--help` itself is click's, the same everywhere."""
    return [
        tuple(name for name in (*param.opts, *param.secondary_opts) if name.startswith("--"))
        for param in command.params
        if param.param_type_name == "option" and "--help" not in param.opts
    ]


def _in_code(text: str) -> set[str]:
    """The `--options` a page names in code (`--q N`, a table's `--verifier facts|lexical|llm`, a
    fenced example), where a reader looks for them."""
    spans = re.findall(r"```.*?```|`[^`\n]+`", text, flags=re.DOTALL)
    return {name for span in spans for name in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span)}


def test_the_manual_builds_without_a_warning(tmp_path: Path) -> None:
    _require_docs_extra()
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    assert (tmp_path / "site" / "api" / "reference" / "index.html").is_file()


def test_every_page_is_in_the_nav() -> None:
    """mkdocs only warns (and --strict fails) about pages missing from nav; this names them."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, flags=re.MULTILINE))
    assert {str(page.relative_to(DOCS)) for page in _pages()} == listed


def test_every_command_appears_in_the_manual() -> None:
    text = "\n".join(_pages().values())
    missing = [name for name in _commands() if f"veritrail {name}" not in text]
    assert not missing, f"commands no page of docs/ names: {missing}"


def test_every_option_of_every_command_is_documented_where_its_command_is() -> None:
    """An option counts as documented when a page that names `veritrail COMMAND` (or the audit
    options' page, which the audit commands share) shows one of its names in code."""
    pages = _pages()
    shared = _in_code(pages[SHARED_OPTIONS_PAGE])
    undocumented = []
    for name, command in _commands().items():
        documented = shared | {
            option for page, text in pages.items() if f"veritrail {name}" in text for option in _in_code(text)
        }
        undocumented += [f"{name} {names[0]}" for names in _option_names(command) if not documented & set(names)]
    assert not undocumented, f"options no page documents beside their command: {undocumented}"


def test_the_readme_and_ci_run_the_same_two_commands() -> None:
    """`.ci/run` is what CI runs; the README and Getting started tell a user the same two lines."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line.startswith(("python3 -m venv", ".venv/bin/pip"))]
    assert len(commands) == 2
    for page in (ROOT / "README.md", DOCS / "getting-started.md"):
        text = page.read_text(encoding="utf-8")
        assert all(f"\n{command}\n" in text for command in commands), page.name


def test_the_readme_is_a_landing_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "mkdocs serve" in readme
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert linked and all((ROOT / link).is_file() for link in linked), linked
