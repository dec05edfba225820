"""Editors: edits of procedural scenes and of photos (classical ops and model backends)."""
