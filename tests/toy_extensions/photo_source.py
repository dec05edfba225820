"""A toy photo source: scikit-image's sample photos by name (`skimage:astronaut,coffee`), read in
memory, without annotations (rows edit the regions the toolkit proposes)."""

import io

import numpy as np
import skimage.data
from PIL import Image

from dicobench.kit.photos.model import PhotoObject, SizePolicy
from dicobench.kit.photos.registry import PhotoSourceKind
from dicobench.kit.photos.sources import PhotoSource
from dicobench.kit.release.licences import Licence


class SamplePhotos(PhotoSource):
    def __init__(self, names: list[str], policy: SizePolicy = SizePolicy()):
        super().__init__(policy)
        self.names = names

    def __len__(self) -> int:
        return len(self.names)

    def photo_id(self, index: int) -> str:
        return f"skimage:{self.names[index]}"

    def annotations(self, index: int) -> tuple[PhotoObject, ...]:
        return ()

    def _bytes(self, index: int) -> bytes:
        buf = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(getattr(skimage.data, self.names[index])())).save(buf, format="PNG")
        return buf.getvalue()


SAMPLES = PhotoSourceKind(
    "skimage", lambda rest, policy: SamplePhotos(rest.split(","), policy), "skimage:NAME[,NAME...]",
    licence=Licence("cc0-1.0", "Base photos: scikit-image's sample images (CC0 and public domain)."),
    tasks=("attribute", "toy_restyle"),
)
