"""DiCoBench as the evaluation harnesses load it: Inspect tasks (the distribution's entry point),
lmms-eval callbacks, VLMEvalKit columns."""
