"""Hierarchical and incremental summarization runs as DAGs: our JSONL log, BooookScore outputs.

The LangChain and LlamaIndex capture helpers live in `.langchain` and `.llama_index`; they are
not imported here, so this package works without those optional libraries.
"""

from veritrail_graphrag.adapters.summaries.booookscore import list_books, read_booookscore
from veritrail_graphrag.adapters.summaries.detect import detect_format, load_summary_run
from veritrail_graphrag.adapters.summaries.log_reader import TornLineWarning, read_summary_log
from veritrail_graphrag.adapters.summaries.log_writer import SummaryLog

__all__ = [
    "SummaryLog",
    "TornLineWarning",
    "detect_format",
    "list_books",
    "load_summary_run",
    "read_booookscore",
    "read_summary_log",
]
