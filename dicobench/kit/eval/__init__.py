"""Evaluation: model runners, the judge client and its cache, answer reading and scores."""
