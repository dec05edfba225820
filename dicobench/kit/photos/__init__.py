"""Real photos as base images: where they come from and how their pixels are decoded."""
