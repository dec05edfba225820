"""Dataset I/O: Parquet shards, row lookup, image encoding, manifests and the inputs users name."""
