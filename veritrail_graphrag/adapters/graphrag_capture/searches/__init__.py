"""GraphRAG's search methods, one module each; a new method is one module and one line here.

`SEARCHES` is also the order in which a recorder's callbacks are matched to a method: global
search is told by its map calls, DRIFT by its action graph, basic search by a context window of
text units only, local search by any other window.
"""

from veritrail_graphrag.adapters.graphrag import Method
from veritrail_graphrag.adapters.graphrag_capture.searches import (
    basic_search,
    drift_search,
    global_search,
    local_search,
)
from veritrail_graphrag.adapters.graphrag_capture.searches.base import Recorded, Search

SEARCHES: dict[Method, Search] = {
    search.name: search
    for search in (global_search.SEARCH, drift_search.SEARCH, basic_search.SEARCH, local_search.SEARCH)
}

__all__ = ["SEARCHES", "Recorded", "Search"]
