"""MultipanelVQA as the evaluation harnesses load it: its Inspect task, lmms-eval callbacks, VLMEvalKit columns."""
