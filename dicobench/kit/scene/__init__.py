"""The scene engine: scenes as data, random scenes, rendering, the object catalogue and geometry."""
