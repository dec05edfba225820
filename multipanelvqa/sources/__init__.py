"""Image sets: procedural, the paper's real sources and imported real multipanel images."""
