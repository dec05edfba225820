"""The `dicobench` command (`main`) and its subcommands, each a thin layer over the Python API."""
