"""An audit's report: the model (`model`), report.json as stored (`records`), and its other
readings (`markdown`, `html`, `tables` for parquet), written together by `outputs`."""

from veritrail_graphrag.report.model import AuditReport, ClaimFailure, Summary

__all__ = ["AuditReport", "ClaimFailure", "Summary"]
