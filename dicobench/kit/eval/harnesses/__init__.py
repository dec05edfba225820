"""Bridges to the evaluation harnesses people already use (lmms-eval, VLMEvalKit, Inspect):
task definitions that ask this project's prompt and score by its rules, and readers that turn
their outputs back into a predictions file for `score`."""
