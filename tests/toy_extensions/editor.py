"""A toy pixel editor: it paints the mask in the palette colour its instruction names (the
recolour template's "Make the cup blue, ..."); any other instruction leaves the photo as it is,
which the row's checks then reject."""

import numpy as np

from dicobench.editors.photo.instructed import TARGET_COLOURS
from dicobench.editors.registry import EditorKind
from dicobench.kit.scene.palette import COLOURS


class Painter:
    takes_reference = False

    def __init__(self, name: str):
        self.name = f"toy painter ({name})"

    def edit(self, image: np.ndarray, mask: np.ndarray, instruction: str, *, seed: int | None = None,
             **extra) -> np.ndarray:
        words = instruction.rstrip(".").replace(",", "").split()
        colour = next((w for w in words if w in TARGET_COLOURS), None)
        out = image.copy()
        if colour is not None:
            out[mask] = COLOURS[colour]
        return out


PAINTER = EditorKind("paint", lambda rest, steps, size: Painter(rest), "paint:<name>")
