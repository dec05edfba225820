"""Proposers of DiCoBench rows, one module per source kind (procedural scenes, photos)."""
