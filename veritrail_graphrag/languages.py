"""Which language a text is written in, offline: py3langid's model ships inside its wheel.

An offline verifier compares words, so a claim can only be checked against evidence in its own
language, and only in a language it knows (its negation words, its stems); sentences are split by
their language's rules. Both need the language of a claim (a sentence) and of a source text.

py3langid was chosen over lingua on 2,273 labelled sentences of the published GraphRAG indexes in
eight languages (`benchmarks/language_id.py`): it names the wrong language for 8 where lingua does
for 71 (an English claim taken for Welsh would be left unchecked), leaves 155 unnamed (which costs
nothing: an unnamed language is read as before), and takes an eighteenth of the time a sentence
and an eighth of the memory. The candidates are the written languages below,
not py3langid's 140 (Ligurian, Nigerian Pidgin, ...), which short English titles were mistaken for,
nor Galician, which short Spanish lines were;
an answer below `MIN_CONFIDENCE` is no answer (None), and a text without enough letters has none.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

LANGUAGES: dict[str, str] = {
    "af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "az": "Azerbaijani", "be": "Belarusian",
    "bg": "Bulgarian", "bn": "Bengali", "bs": "Bosnian", "ca": "Catalan", "cs": "Czech", "cy": "Welsh",
    "da": "Danish", "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian",
    "eu": "Basque", "fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish",
    "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "hy": "Armenian",
    "id": "Indonesian", "is": "Icelandic", "it": "Italian", "ja": "Japanese", "ka": "Georgian",
    "kk": "Kazakh", "km": "Khmer", "kn": "Kannada", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian",
    "mk": "Macedonian", "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi", "ms": "Malay",
    "my": "Burmese", "ne": "Nepali", "nl": "Dutch", "nn": "Norwegian Nynorsk", "no": "Norwegian",
    "pa": "Punjabi", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian",
    "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian",
    "sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "te": "Telugu", "th": "Thai", "tl": "Tagalog",
    "tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese", "zh": "Chinese",
}  # fmt: skip
"""ISO 639-1 code -> English name: every language a text can be found to be in."""

_NO_LANGUAGE = "zxx"
"""py3langid's answer for text without linguistic content (tables of numbers, code)."""
MIN_CONFIDENCE = 0.5
"""Below this probability a language is not named: an unknown language is never held against a
claim, a wrongly named one may be."""
MIN_LETTERS = 8
SAMPLE_CHARS = 600
"""Characters of a long text that are read (its start, middle and end): the language of a source
text shows in a few hundred characters, and a text of thousands costs as many."""

_BRACKETED = re.compile(r"\[[^\[\]\n]{0,300}\]|\(\s*https?://\S*\)|https?://\S+")
_LETTER = re.compile(r"[^\W\d_]")


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's model (a few seconds to load), limited to `LANGUAGES`: loaded on first use."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages([*LANGUAGES, _NO_LANGUAGE])
    return identifier


def _sample(text: str) -> str:
    """What is read of `text`: without bracketed markers and links (`[Data: Entities (3)]` is
    English in any report), and of a long text three windows."""
    text = _BRACKETED.sub(" ", text)
    if len(text) <= SAMPLE_CHARS:
        return text
    third = SAMPLE_CHARS // 3
    middle = len(text) // 2 - third // 2
    return " ".join((text[:third], text[middle : middle + third], text[-third:]))


@lru_cache(maxsize=4096)
def detect_language(text: str) -> str | None:
    """The ISO 639-1 code of the language `text` is written in, or None when it cannot be told
    (too few letters, no language, or no language likely enough). A few thousand recent texts are
    remembered (a claim's, an excerpt split again); a DAG keeps its nodes' languages itself."""
    sample = _sample(text)
    if len(_LETTER.findall(sample)) < MIN_LETTERS:
        return None
    code, probability = _identifier().classify(sample)
    if code == _NO_LANGUAGE or probability < MIN_CONFIDENCE:
        return None
    return str(code)


def language_name(code: str | None) -> str:
    """`en` -> English; None -> "an unknown language"."""
    if code is None:
        return "an unknown language"
    return LANGUAGES.get(code, code)


def language_list(codes: list[str] | set[str] | frozenset[str]) -> str:
    """ "English, French and German": the languages of `codes`, named in the order of their codes."""
    names = [language_name(code) for code in sorted(codes)]
    return "".join(names) if len(names) <= 1 else ", ".join(names[:-1]) + " and " + names[-1]
