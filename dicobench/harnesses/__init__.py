"""DiCoBench as the evaluation harnesses load it: Inspect tasks, lmms-eval callbacks, VLMEvalKit columns."""
