"""Releases: dataset cards, Hub publication, licences, citations and the metric modules."""
