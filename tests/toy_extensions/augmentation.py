"""A toy MultipanelVQA config: every panel mirrored left to right (questions and answers stay,
as the paper's augmentations keep them)."""

import dataclasses

from PIL import ImageOps

from multipanelvqa.augmentations import Augmentation


def mirror(spec):
    return dataclasses.replace(spec, panels=tuple(ImageOps.mirror(p) for p in spec.panels))


def mirrored(**_):
    return mirror


MIRRORED = Augmentation("toy_mirrored", mirrored)
