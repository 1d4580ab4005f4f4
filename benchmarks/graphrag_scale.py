"""How long `read_index` takes, and how much memory it needs, on an index of the paper's size.

The paper's GraphRAG DAGs averaged ~114K nodes. This writes a synthetic 3.x output folder of that
size (3,199 text units; ~95,000 per-chunk entity/relationship records kept by
`snapshots.raw_graph`; ~12,000 summarized descriptions; 3,650 community reports over 4 levels),
then reads it in a fresh process so that the peak resident memory is the reader's alone.

    python benchmarks/graphrag_scale.py [--out DIR] [--seed N]

Targets: under 20 s and under 3 GB. The texts are filler; only sizes and shapes are realistic.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

TEXT_UNITS = 3_199
LEVEL_SIZES = (150, 500, 1_200, 1_800)  # communities per level: 3,650 reports
ENTITIES = 20_000
RELATIONSHIPS = 31_000
MULTI_ENTITIES = 5_000  # entities seen in several chunks, hence summarized (stage 3)
MULTI_RELATIONSHIPS = 7_000
TIME_TARGET_S = 20.0
MEMORY_TARGET_MB = 3 * 1024
_FILLER = (
    "The ledger lay open on the desk while the clerk copied letters by the light of one candle. "
    "Outside, the fog pressed against the windows and the bells of the old church struck the hour. "
)


def _hex_ids(rng: np.random.Generator, count: int, width: int = 32) -> list[str]:
    return [f"{value:0{width}x}" for value in rng.integers(0, 2**63, size=count, dtype=np.int64)]


def _chunk_lists(rng: np.random.Generator, count: int, multi: int) -> list[np.ndarray]:
    """Text unit positions per item: the first `multi` items appear in 2-8 chunks, the rest in one."""
    sizes = np.ones(count, dtype=int)
    sizes[:multi] = rng.integers(2, 9, size=multi)
    return [rng.choice(TEXT_UNITS, size=s, replace=False) for s in sizes]


def _communities(rng: np.random.Generator) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """A 4-level hierarchy; returns the table skeleton and, per level, each leaf's ancestor there."""
    rows = []
    first = 0
    parents_of_level: list[np.ndarray] = []
    for level, size in enumerate(LEVEL_SIZES):
        numbers = np.arange(first, first + size)
        if level == 0:
            parents = np.full(size, -1)
        else:
            above = parents_of_level[-1]
            parents = np.concatenate([above, rng.choice(above, size=size - len(above))])
        parents_of_level.append(numbers)
        rows.extend(
            {"community": int(c), "level": level, "parent": int(p)} for c, p in zip(numbers, parents, strict=True)
        )
        first += size
    table = pd.DataFrame(rows)
    parent = dict(zip(table["community"], table["parent"], strict=True))
    leaves = parents_of_level[-1]
    chains = [leaves]
    for _ in range(len(LEVEL_SIZES) - 1):
        chains.insert(0, np.array([parent[c] for c in chains[0]]))
    return table, chains


def write_index(out: Path, seed: int = 7) -> dict[str, int]:
    """Write the synthetic tables under `out`; returns the expected node count per stage."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    unit_ids = _hex_ids(rng, TEXT_UNITS, 128)
    pd.DataFrame(
        {
            "id": unit_ids,
            "human_readable_id": np.arange(TEXT_UNITS),
            "text": [f"Chunk {i}. " + _FILLER * 30 for i in range(TEXT_UNITS)],
            "n_tokens": 1200,
            "document_id": "d0",
        }
    ).to_parquet(out / "text_units.parquet")

    communities, chains = _communities(rng)
    leaves = chains[-1]
    entity_leaf = rng.integers(0, len(leaves), size=ENTITIES)
    titles = np.array([f"ENTITY {i}" for i in range(ENTITIES)], dtype=object)
    entity_ids = _hex_ids(rng, ENTITIES)
    entity_chunks = _chunk_lists(rng, ENTITIES, MULTI_ENTITIES)
    pd.DataFrame(
        {
            "id": entity_ids,
            "human_readable_id": np.arange(ENTITIES),
            "title": titles,
            "type": "PERSON",
            "description": [f"{t} is a character who keeps the ledger. " + _FILLER for t in titles],
            "text_unit_ids": [[unit_ids[c] for c in cs] for cs in entity_chunks],
        }
    ).to_parquet(out / "entities.parquet")
    pd.DataFrame(
        {
            "title": titles,
            "type": "PERSON",
            "description": [
                [f"{t} as chunk {c} describes it." for c in cs] for t, cs in zip(titles, entity_chunks, strict=True)
            ],
            "text_unit_ids": [[unit_ids[c] for c in cs] for cs in entity_chunks],
        }
    ).to_parquet(out / "raw_entities.parquet")

    # Relationships mostly link two entities of one leaf community, as community detection implies.
    by_leaf = pd.Series(np.arange(ENTITIES)).groupby(entity_leaf).agg(list)
    source = rng.integers(0, ENTITIES, size=RELATIONSHIPS)
    target = np.array([rng.choice(by_leaf[entity_leaf[s]]) for s in source])
    keep = source != target
    pairs = pd.DataFrame({"s": source[keep], "t": target[keep]}).drop_duplicates()
    count = len(pairs)
    rel_ids = _hex_ids(rng, count)
    rel_chunks = _chunk_lists(rng, count, MULTI_RELATIONSHIPS)
    sources, targets = titles[pairs["s"].to_numpy()], titles[pairs["t"].to_numpy()]
    pd.DataFrame(
        {
            "id": rel_ids,
            "human_readable_id": np.arange(count),
            "source": sources,
            "target": targets,
            "description": [f"{s} owes money to {t}. " + _FILLER for s, t in zip(sources, targets, strict=True)],
            "text_unit_ids": [[unit_ids[c] for c in cs] for cs in rel_chunks],
        }
    ).to_parquet(out / "relationships.parquet")
    pd.DataFrame(
        {
            "source": sources,
            "target": targets,
            "description": [
                [f"{s} and {t} meet in chunk {c}." for c in cs]
                for s, t, cs in zip(sources, targets, rel_chunks, strict=True)
            ],
            "text_unit_ids": [[unit_ids[c] for c in cs] for cs in rel_chunks],
        }
    ).to_parquet(out / "raw_relationships.parquet")

    # Entity and relationship membership per community at every level.
    member_rows = []
    rel_leaf = entity_leaf[pairs["s"].to_numpy()]
    same_leaf = rel_leaf == entity_leaf[pairs["t"].to_numpy()]
    for chain in chains:
        member_rows.append(pd.DataFrame({"community": chain[entity_leaf], "entity": entity_ids, "relationship": None}))
        member_rows.append(
            pd.DataFrame(
                {"community": chain[rel_leaf[same_leaf]], "entity": None, "relationship": np.array(rel_ids)[same_leaf]}
            )
        )
    members = pd.concat(member_rows, ignore_index=True)
    entity_lists = members.dropna(subset=["entity"]).groupby("community")["entity"].agg(list)
    rel_lists = members.dropna(subset=["relationship"]).groupby("community")["relationship"].agg(list)
    communities["entity_ids"] = (
        communities["community"].map(entity_lists).apply(lambda v: v if isinstance(v, list) else [])
    )
    communities["relationship_ids"] = (
        communities["community"].map(rel_lists).apply(lambda v: v if isinstance(v, list) else [])
    )
    communities["children"] = (
        communities["community"]
        .map(communities[communities["parent"] >= 0].groupby("parent")["community"].agg(list))
        .apply(lambda v: v if isinstance(v, list) else [])
    )
    communities.insert(0, "id", _hex_ids(rng, len(communities)))
    communities["human_readable_id"] = communities["community"]
    communities.to_parquet(out / "communities.parquet")
    pd.DataFrame(
        {
            "id": _hex_ids(rng, len(communities)),
            "human_readable_id": communities["community"],
            "community": communities["community"],
            "level": communities["level"],
            "title": [f"Community {c}" for c in communities["community"]],
            "full_content": [f"# Community {c}\n\n" + _FILLER * 12 for c in communities["community"]],
            "rank": 5.0,
        }
    ).to_parquet(out / "community_reports.parquet")

    multi = MULTI_ENTITIES + MULTI_RELATIONSHIPS
    per_chunk = sum(len(c) for c in entity_chunks[:MULTI_ENTITIES]) + sum(
        len(c) for c in rel_chunks[:MULTI_RELATIONSHIPS]
    )
    singles = (ENTITIES - MULTI_ENTITIES) + (count - MULTI_RELATIONSHIPS)
    return {"1": TEXT_UNITS, "2": per_chunk + singles, "3": multi, "4": len(communities)}


def measure(folder: Path) -> dict[str, object]:
    """Read the index in this process; report seconds, peak RSS (MB) and nodes per stage."""
    from veritrail_graphrag.adapters.graphrag import read_index

    start = time.perf_counter()
    dag = read_index(folder)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak_mb),
        "nodes": len(dag),
        "edges": dag.graph.number_of_edges(),
        "stages": {str(k): v for k, v in dag.stages().items()},
        "stage2": dag.metadata["stage2"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the synthetic index here (default: a temp dir)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "output"
        started = time.perf_counter()
        expected = write_index(out, args.seed)
        print(
            f"wrote {out} in {time.perf_counter() - started:.1f} s; expected nodes per stage {expected}",
            file=sys.stderr,
        )
        child = subprocess.run(
            [sys.executable, __file__, "--measure", str(out)], capture_output=True, text=True, check=False
        )
        if child.returncode != 0:
            print(child.stderr, file=sys.stderr)
            return child.returncode
        result = json.loads(child.stdout)
    result["expected_stages"] = expected
    result["ok"] = (
        result["seconds"] < TIME_TARGET_S and result["peak_rss_mb"] < MEMORY_TARGET_MB and result["stages"] == expected
    )
    print(json.dumps(result, indent=1))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
