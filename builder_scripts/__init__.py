"""The import paths the first release documented for the `datasets` builders, kept for a checkout:
the builders ship in the packages (`dicobench.datasets_builder`, `multipanelvqa.datasets_builder`)."""
