"""Comparing finished audits: across index versions, settings, or groups of runs (the paper's appendix H)."""
