"""The multipanel image: layouts, position names, composition and augmentations."""
