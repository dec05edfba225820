"""The command line both benchmarks share: its plumbing and the shared subcommands."""
