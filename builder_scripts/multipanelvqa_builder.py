"""`from builder_scripts.multipanelvqa_builder import MultipanelVQA` (from a checkout):
`multipanelvqa.datasets_builder`'s."""

from multipanelvqa.datasets_builder import MultipanelVQA, MultipanelVQAConfig

__all__ = ["MultipanelVQA", "MultipanelVQAConfig"]
