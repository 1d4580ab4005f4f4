"""Comparing finished audits: across index versions, settings, or groups of runs (METHOD.md section 6)."""
