"""The annotated photo folder the photo commonality tests and the digest fixtures build from:
skimage's astronaut, its twin and three unrelated photos, with `annotations.jsonl`."""

import io
import json

import numpy as np
import skimage.data as skdata
from PIL import Image

from dicobench.kit.photos.model import SizePolicy
from dicobench.kit.photos.sources import FolderSource

POLICY = SizePolicy(768, upscale=True)

# small objects of skimage's astronaut (512x512); "star" twice, so no option can name it there
ASTRONAUT = {"name tag": (278, 338, 52, 36), "smile": (203, 135, 44, 22), "sleeve patch": (22, 330, 30, 55),
             "wrist ring": (152, 462, 44, 44)}
STARS = [(22, 52, 30, 30), (22, 0, 30, 30)]
# photos sharing no name with the astronaut: image b, and stand-ins cut from them
OTHERS = {
    "coffee.png": (skdata.coffee, {"cup": (172, 15, 240, 205), "cup handle": (195, 228, 65, 78),
                                   "spoon bowl": (325, 238, 82, 88)}),
    "rocket.png": (skdata.rocket, {"rocket nose": (306, 125, 34, 55), "floodlight": (136, 362, 30, 30)}),
    "chelsea.png": (skdata.chelsea, {"cat eye": (135, 85, 75, 65), "cat nose": (232, 222, 60, 45)}),
}


def mirror(box):
    return (512 - box[0] - box[2], *box[1:])


def png(pixels) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(buf, format="PNG")
    return buf.getvalue()


def write_source(root, twin: dict) -> FolderSource:
    """The astronaut, its twin (mirrored, colours rotated: another photo with objects called
    `twin`'s names, boxes in the astronaut's pixels) and the unrelated photos."""
    (root / "astronaut.png").write_bytes(png(skdata.astronaut()))
    (root / "twin.png").write_bytes(png(skdata.astronaut()[:, ::-1, [2, 0, 1]]))
    lines = [{"file": "astronaut.png", "objects": [{"name": n, "box": b} for n, b in ASTRONAUT.items()]
              + [{"name": "Star", "box": b} for b in STARS]},
             {"file": "twin.png", "objects": [{"name": n, "box": mirror(b)} for n, b in twin.items()]}]
    for file, (image, objects) in OTHERS.items():
        (root / file).write_bytes(png(image()))
        lines.append({"file": file, "objects": [{"name": n, "box": b} for n, b in objects.items()]})
    (root / "annotations.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    return FolderSource(root, POLICY)


TWINS = {
    "full": {**ASTRONAUT, "star ": STARS[0]},  # names are compared lowercased and stripped
    "lacking": {n: ASTRONAUT[n] for n in ("name tag", "smile", "sleeve patch")},
    "tiny": {**ASTRONAUT, "wrist ring": (152, 462, 8, 8)},  # annotated, but too small to insert
}
