"""MultipanelVQA as the evaluation harnesses load it: lmms-eval callbacks, VLMEvalKit columns."""
