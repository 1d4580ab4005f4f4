"""Small valid inputs to mutate, written for these tests (no text of any real run).

Each strategy draws a document a reader accepts as it is; the property tests then damage it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

SENTENCES = [
    "The ferry leaves the north pier at dawn.",
    "Mara repairs the harbour lamps every winter.",
    "The council voted to close the old mill.",
    "Two keepers share the lighthouse on Gull Rock.",
    "The storm of March flooded the lower town.",
    "Oren sells smoked fish at the Thursday market.",
    "The mill's wheel has not turned since the flood.",
    "A new bridge links the island to the mainland.",
]

sentence = st.sampled_from(SENTENCES)
passages = st.lists(sentence, min_size=1, max_size=3).map(" ".join)
ids = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)


@st.composite
def layered(draw: st.DrawFn, max_sources: int = 4) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Sources, summaries of them, and one final summary of the summaries: nodes and edges."""
    sources = [f"chunk-{i}" for i in range(draw(st.integers(1, max_sources)))]
    middle = [f"summary-{i}" for i in range(draw(st.integers(1, 3)))]
    nodes = [{"id": s, "text": draw(passages), "stage": 1} for s in sources]
    nodes += [{"id": m, "text": draw(passages), "stage": 2} for m in middle]
    nodes.append({"id": "final", "text": draw(passages), "stage": 3})
    edges = [(draw(st.sampled_from(sources)), m) for m in middle]
    edges += [(s, m) for m in middle for s in sources if draw(st.booleans())]
    edges += [(m, "final") for m in middle]
    return nodes, list(dict.fromkeys(edges))


@st.composite
def dag_documents(draw: st.DrawFn) -> dict[str, Any]:
    """veritrail's DAG JSON (`DAG.to_json`'s shape)."""
    nodes, edges = draw(layered())
    metadata = {"question": draw(sentence)} if draw(st.booleans()) else {}
    return {"format": "veritrail-dag", "version": 1, "metadata": metadata, "nodes": nodes, "edges": edges}


@st.composite
def summary_logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A `veritrail-summary-log`, one object a line: header, texts (inputs before use), question,
    metadata."""
    nodes, edges = draw(layered())
    header = {"format": "veritrail-summary-log", "version": 1, "created_at": "2026-11-02T10:00:00Z", "metadata": {}}
    records: list[dict[str, Any]] = [header]
    for node in nodes:
        record = {"type": "text", "id": node["id"], "text": node["text"]}
        inputs = [u for u, v in edges if v == node["id"]]
        if inputs:
            record["inputs"] = inputs
        records.append(record)
    if draw(st.booleans()):
        records.append({"type": "question", "text": draw(sentence)})
    if draw(st.booleans()):
        records.append({"type": "metadata", "metadata": {"model": "a-model", "cost": 0.5}})
    return records


@st.composite
def booookscore_documents(draw: st.DrawFn) -> dict[str, Any]:
    """BooookScore's summaries of one or two books: hierarchical levels, or running summaries."""
    books: dict[str, Any] = {}
    for book in draw(st.lists(st.sampled_from(["harbour-tales", "mill-town"]), min_size=1, max_size=2, unique=True)):
        if draw(st.booleans()):
            books[book] = draw(st.lists(passages, min_size=1, max_size=4))
            continue
        level0 = draw(st.lists(passages, min_size=1, max_size=4))
        levels = {"0": level0}
        if len(level0) > 1:
            levels["1"] = [" ".join(level0)]
        final = levels[str(len(levels) - 1)][0]
        books[book] = {"summaries_dict": levels, "final_summary": final}
    return books


@st.composite
def claims_documents(draw: st.DrawFn) -> Any:
    """A claims file: a list of claims, `{"claims": [...]}`, with or without sub-claims."""
    claims = [
        {"id": f"c{i}", "text": draw(sentence)} | ({"sub_claims": [draw(sentence)]} if draw(st.booleans()) else {})
        for i in range(draw(st.integers(1, 4)))
    ]
    return {"claims": claims} if draw(st.booleans()) else claims


@st.composite
def spans_documents(draw: st.DrawFn) -> Any:
    """Evidence spans: a list of `{sid, text}`, `{"spans": [...]}`, or `{sid: text}`."""
    texts = draw(st.lists(sentence, min_size=1, max_size=4))
    spans = [{"sid": f"S{i}", "text": text} for i, text in enumerate(texts)]
    shape = draw(st.sampled_from(["list", "wrapped", "mapping"]))
    if shape == "mapping":
        return {span["sid"]: span["text"] for span in spans}
    return {"spans": spans} if shape == "wrapped" else spans


@st.composite
def claim_lists(draw: st.DrawFn) -> list[Any]:
    """`check-cited --claims`: strings, or objects with a text (and anything else)."""
    return [
        text if draw(st.booleans()) else {"text": text, "citations": ["S0"]}
        for text in draw(st.lists(sentence, min_size=1, max_size=4))
    ]
