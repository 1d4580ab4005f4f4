"""The layers stay apart: adapters know pipelines, the engine knows traversal, `llm` knows transport.

Imports are read with `ast` (module-level and inside functions alike) and followed transitively
within the package, so an import that reaches a forbidden layer through a neutral module fails as
well, with the whole chain in the message.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import pytest

import veritrail_graphrag

PACKAGE = Path(veritrail_graphrag.__file__).parent
Graph = dict[str, list[tuple[str, int]]]

# (who, the modules it starts from, what none of them may reach)
_P = "veritrail_graphrag."
RULES = [
    ("a verifier", _P + "verifiers", tuple(_P + p for p in ("adapters", "audit", "report", "cli"))),
    ("the engine", _P + "engine", (*(_P + p for p in ("adapters", "llm", "audit", "report", "cli")), "graphrag")),
    ("an adapter", _P + "adapters", tuple(_P + p for p in ("engine", "verifiers", "llm", "audit", "cli"))),
    ("llm (transport)", _P + "llm", (_P + "adapters", _P + "verifiers")),
    *(  # nothing but the CLI (and `python -m`) imports the CLI
        (f"{_P}{name} (not the CLI)", _P + name, (_P + "cli",))
        for name in sorted({p.stem for p in PACKAGE.glob("*.py")} | {p.parent.name for p in PACKAGE.glob("*/__init__.py")})
        if name not in {"cli", "__main__", "__init__"}
    ),
]


def _name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path = PACKAGE) -> Graph:
    """Each module of the package and what it imports (module name, line), lazily or not."""
    files = {_name(path, package): path for path in sorted(package.rglob("*.py"))}
    graph: Graph = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        imported: list[tuple[str, int]] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                imported += [(alias.name, node.lineno) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                else:
                    base = node.module or ""
                submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
                if len(submodules) < len(node.names):  # `from pkg import module` runs the module, not more
                    imported.append((base, node.lineno))
                imported += [(module, node.lineno) for module in submodules]
        graph[name] = imported
    return graph


def _within(name: str, prefix: str) -> bool:
    if prefix == "graphrag":  # GraphRAG's distribution ships graphrag, graphrag_storage, graphrag_llm, ...
        return name.split(".")[0] == "graphrag" or name.startswith("graphrag_")
    return name == prefix or name.startswith(prefix + ".")


def violations(graph: Graph, who: str, start: str, forbidden: tuple[str, ...]) -> list[str]:
    """One line per forbidden import reachable from the modules under `start`: the importing chain."""
    roots = [name for name in graph if _within(name, start)]
    if not roots:
        return [f"no module under {start}: the rule for {who} checks nothing"]
    found: list[str] = []
    for root in roots:
        came_from: dict[str, tuple[str, int] | None] = {root: None}
        queue = deque([root])
        while queue:
            module = queue.popleft()
            for target, line in graph.get(module, []):
                if any(_within(target, bad) for bad in forbidden):
                    chain = [f"{target} (line {line} of {module})"]
                    step = module
                    while (previous := came_from[step]) is not None:
                        chain.append(f"{step} (line {previous[1]} of {previous[0]})")
                        step = previous[0]
                    found.append(f"{who} must not import {target}: {root} -> " + " -> ".join(reversed(chain)))
                elif target in graph and target not in came_from:
                    came_from[target] = (module, line)
                    queue.append(target)
    return sorted(set(found))


@pytest.mark.parametrize(("who", "start", "forbidden"), RULES, ids=[rule[0] for rule in RULES])
def test_layers_import_nothing_they_must_not(who: str, start: str, forbidden: tuple[str, ...]) -> None:
    problems = violations(import_graph(), who, start, forbidden)
    assert not problems, "\n".join(problems)


def test_a_forbidden_import_is_named_with_its_chain(tmp_path: Path) -> None:
    graph: Graph = {
        "pkg.engine": [("pkg.models", 3)],
        "pkg.models": [("pkg.llm.usage", 7)],
        "pkg.llm": [],
        "pkg.llm.usage": [],
    }
    assert violations(graph, "the engine", "pkg.engine", ("pkg.llm",)) == [
        "the engine must not import pkg.llm.usage: pkg.engine -> pkg.models (line 3 of pkg.engine) -> "
        "pkg.llm.usage (line 7 of pkg.models)"
    ]
    nothing = violations(graph, "x", "pkg.nothing", ("pkg.llm",))
    assert nothing == ["no module under pkg.nothing: the rule for x checks nothing"]


def test_imports_are_read_lazily_and_relatively(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from . import leaf\n")
    (package / "sub" / "leaf.py").write_text("def f():\n    from ..other import thing\n    import json\n")
    (package / "other.py").write_text("thing = 1\n")
    graph = import_graph(package)
    assert graph["pkg.sub"] == [("pkg.sub.leaf", 1)]
    assert graph["pkg.sub.leaf"] == [("pkg.other", 2), ("json", 3)]
