"""Two offline language identifiers compared on short text of the published GraphRAG indexes:
py3langid (as `languages.detect_language` uses it) and lingua; accuracy, time a text, load time
and memory. This is the measurement that chose py3langid.

    pip install lingua-language-detector    # the benchmark's only extra; the product needs none
    python benchmarks/language_id.py [--corpus ../shared/fixtures/graphrag-wild] [--per-table 60] [--seed 0]

The sample: from each index, up to `--per-table` sentences of its text units and as many of its
community reports, drawn at random (the seed is printed), of 20 to 200 characters (claims are of
that length) and at least half letters (code and tables of numbers left out). Sentences are split
by English rules with CJK sentence ends, so no detector decides what is compared.

The labels: each index's source language and report language, as a person read them (`LABELS`);
a sentence gets its table's label when its letters are of that language's script (a sentence of
a Chinese text unit without a Chinese character, a code comment or an English title, is left out;
so is a sentence with CJK, Cyrillic or Hangul letters under a Latin-script label). The labels are
not checked sentence by sentence: an English phrase quoted in a French text unit counts against
both identifiers alike.

Each identifier runs in its own process (its load time and peak memory are its own), over the
same sentences, restricted to the same candidate languages (those of `languages.LANGUAGES` it
knows). "No answer" (py3langid below `MIN_CONFIDENCE`, lingua undecided) is counted apart from a
wrong answer. Timings are of a shared machine: compare the two within one run.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LABELS: dict[str, tuple[str, str]] = {
    "Coder-Dilip__BhagwatRag": ("en", "en"),
    "HenryHung90__yzuic114_stamindTask": ("zh", "zh"),
    "JamesFein__gyrw-graphrag": ("zh", "en"),
    "Minda93__III_2024_golf": ("zh", "en"),
    "Musbell__graph-rag-learning": ("en", "en"),
    "Mustapha-Dafa__GraphRAG": ("fr", "fr"),
    "Nooryasser74__solar-market-kg-demo-": ("en", "en"),
    "SyDuc7421__land-law-graph-rag": ("vi", "vi"),
    "VinceMu__PDFChat": ("en", "en"),
    "axardion__datasaur26": ("ru", "en"),
    "hzy9981__aviation-accident-analysis": ("zh", "en"),
    "jh941213__mvp_final": ("en", "en"),
    "khmelkoff__jm_project": ("en", "en"),
    "maxistaebler__eKNOW_2025": ("en", "en"),
    "pguatibonza__python-whatsapp-bot": ("es", "en"),
    "piyo123__learning-microsoft-graphrag": ("ja", "en"),
    "qk-antares__cse-kg-rag": ("zh", "en"),
    "rebibabo__graphrag-three-body": ("zh", "en"),
    "schauerstoff__TrapGPT": ("de", "de"),
    "sher1ock-jp__graph-rag-paper": ("en", "en"),
}
"""Index folder -> (language of its text units, language of its community reports)."""
_SCRIPTS = {
    "han": re.compile(r"[\u4e00-\u9fff]"),
    "kana": re.compile(r"[\u3040-\u30ff]"),
    "hangul": re.compile(r"[\uac00-\ud7af]"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
}
_LETTER = re.compile(r"[^\W\d_]")


def _script_fits(sentence: str, language: str) -> bool:
    found = {name for name, pattern in _SCRIPTS.items() if pattern.search(sentence)}
    if language == "zh":
        return "han" in found and "kana" not in found
    if language == "ja":
        return "kana" in found
    if language == "ru":
        return found == {"cyrillic"}
    return not found  # Latin-script languages


def sample(corpus: Path, per_table: int, seed: int) -> list[dict[str, str]]:
    """The labelled sentences (index, table, label, text), drawn as the module docstring says."""
    from veritrail_graphrag.adapters.graphrag.layout import locate
    from veritrail_graphrag.adapters.graphrag.tables import read_table
    from veritrail_graphrag.sentences import split_sentences

    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    for name, (units_language, reports_language) in sorted(LABELS.items()):
        layout = locate(corpus / name)
        tables = (
            ("text_units", "text", units_language),
            ("community_reports", "full_content", reports_language),
        )
        for table, column, language in tables:
            texts = read_table(table, layout.file(table)).frame[column].tolist()
            sentences = [
                s
                for text in texts
                for s in split_sentences(text, None)
                if 20 <= len(s) <= 200
                and len(_LETTER.findall(s)) >= len(s) / 2
                and _script_fits(s, language)
            ]
            for sentence in rng.sample(sentences, min(per_table, len(sentences))):
                rows.append({"index": name, "table": table, "label": language, "text": sentence})
    return rows


def _memory_mb(field: str) -> float:
    """VmRSS (now) or VmHWM (peak) of this process: `ru_maxrss` would carry the parent's peak
    across the exec that started it."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _py3langid() -> Any:
    """The product's own function, without its cache: what an audit pays a text."""
    from veritrail_graphrag import languages

    languages._identifier()
    return languages.detect_language.__wrapped__


def _lingua() -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    from veritrail_graphrag.languages import LANGUAGES

    known = []
    for code in LANGUAGES:
        try:
            known.append(Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())))
        except (AttributeError, ValueError):
            continue
    detector = LanguageDetectorBuilder.from_languages(*known).build()

    def detect(text: str) -> str | None:
        found = detector.detect_language_of(text)
        return None if found is None else found.iso_code_639_1.name.lower()

    detect("warm up the models of every language")
    return detect


def child(library: str, path: Path) -> None:
    """Run one identifier over the sample; print its answers, load time, ms a text and peak MB."""
    texts = [row["text"] for row in json.loads(path.read_text(encoding="utf-8"))]
    before = _memory_mb("VmRSS")
    started = time.perf_counter()
    detect = _py3langid() if library == "py3langid" else _lingua()
    loaded = time.perf_counter() - started
    started = time.perf_counter()
    answers = [detect(text) for text in texts]
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "answers": answers,
                "load_seconds": loaded,
                "ms_a_text": 1000 * seconds / max(len(texts), 1),
                "peak_mb_added": _memory_mb("VmHWM") - before,
            }
        )
    )


def _interval(right: int, total: int) -> str:
    """Wilson's 95% interval of a proportion, in percent."""
    if total == 0:
        return "-"
    z, p = 1.96, right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * ((p * (1 - p) / total + z * z / (4 * total * total)) ** 0.5) / (1 + z * z / total)
    return f"{100 * (centre - half):.1f}-{100 * (centre + half):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "fixtures" / "graphrag-wild")
    parser.add_argument("--per-table", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "SAMPLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]))
        return
    rows = sample(args.corpus, args.per_table, args.seed)
    counts = Counter(row["label"] for row in rows)
    short = [len(row["text"]) < 60 for row in rows]
    print(
        f"{len(rows)} sentences (seed {args.seed}), {sum(short)} under 60 characters: "
        + ", ".join(f"{code} {n}" for code, n in counts.most_common())
    )
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sample.json"
        path.write_text(json.dumps(rows), encoding="utf-8")
        for library in ("py3langid", "lingua"):
            done = subprocess.run(
                [sys.executable, __file__, "--child", library, str(path)], capture_output=True, text=True, check=True
            )
            results[library] = json.loads(done.stdout.strip().splitlines()[-1])
    print("| | py3langid | lingua |")
    print("|---|---|---|")

    def line(label: str, picked: list[bool]) -> None:
        cells = []
        for library in results:
            answers = [a for a, keep in zip(results[library]["answers"], picked, strict=True) if keep]
            truths = [r["label"] for r, keep in zip(rows, picked, strict=True) if keep]
            right = sum(a == t for a, t in zip(answers, truths, strict=True))
            none = sum(a is None for a in answers)
            cells.append(
                f"{100 * right / max(len(truths), 1):.1f}% ({_interval(right, len(truths))}), "
                f"{len(truths) - right - none} wrong, {none} no answer"
            )
        print(f"| {label} | " + " | ".join(cells) + " |")

    line(f"all {len(rows)}", [True] * len(rows))
    line(f"under 60 characters ({sum(short)})", short)
    for code, _ in counts.most_common():
        line(f"{code} ({counts[code]})", [row["label"] == code for row in rows])
    for key, name, unit in (
        ("ms_a_text", "time a sentence", "ms"),
        ("load_seconds", "load", "s"),
        ("peak_mb_added", "memory added", "MB"),
    ):
        print(f"| {name} | " + " | ".join(f"{results[lib][key]:.2f} {unit}" for lib in results) + " |")
    for library, answers in ((lib, results[lib]["answers"]) for lib in results):
        pairs = zip(rows, answers, strict=True)
        wrong = Counter(f"{row['label']}->{answer}" for row, answer in pairs if answer not in (None, row["label"]))
        listed = ", ".join(f"{pair} {n}" for pair, n in wrong.most_common()) or "none"
        print(f"{library}'s wrong answers (label->answer): {listed}")


if __name__ == "__main__":
    main()
