"""The build driver both benchmarks share and the engines its shard jobs run on."""
