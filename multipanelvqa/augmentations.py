"""MultipanelVQA's synthetic configs, each declared once: its name, the op that turns the original
composition into it, and how generation treats it (Appendix A.4 and E of the paper).

The order of `AUGMENTATION_REGISTRY` is the order of the configs everywhere (schema, builds,
cards); `register_augmentation` adds one at the end. Ops are named by a `Ref("module:function")`
and imported on first use, so reading the vocabulary never imports the compositor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from dicobench.kit.registry import Ref, Registry


@dataclass(frozen=True, eq=False)  # one object per config: compared and hashed by identity
class Augmentation:
    """A synthetic config. `op` (a `Ref` to the function, or the function) takes the keywords of
    `multipanelvqa.composite.augment.for_config` (question, answers, replacements,
    replacement_answers, target_index) and returns the op on a `Composition`.

    `replaces_panels`: every panel but the target is swapped for an image of another set (drawn
    with `ImageSet.take_replacements`), so none repeats the target's scene (no near duplicates).
    `caption_in_question`: Q2 names the target by its caption number instead of its position.
    `image_of`: the config whose composite this one reuses byte for byte (rendered once)."""

    name: str
    op: Ref | Callable
    replaces_panels: bool = False
    caption_in_question: bool = False
    image_of: str | None = None
    _resolved: list = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self):
        if isinstance(self.op, str):  # a "module:function" string, as the first release took it, is that Ref
            object.__setattr__(self, "op", Ref(self.op))

    def make(self, **inputs) -> Callable:
        """The op for one image, from its inputs."""
        if not self._resolved:
            self._resolved.append(self.op.load() if isinstance(self.op, Ref) else self.op)
        return self._resolved[0](**inputs)

    @property
    def composite(self) -> str:
        """The config whose composite this one's rows show."""
        return self.image_of or self.name


ORIGINAL = Augmentation("original", Ref("multipanelvqa.composite.augment:identity"))
AUGMENTATION_REGISTRY: Registry[Augmentation] = Registry("augmentation", [(a.name, a) for a in (
    ORIGINAL,
    Augmentation("low_similarity", Ref("multipanelvqa.composite.augment:low_similarity"), replaces_panels=True),
    Augmentation("enlarged", Ref("multipanelvqa.composite.augment:enlarged")),
    Augmentation("chessboard", Ref("multipanelvqa.composite.augment:chessboard")),
    Augmentation("text_hint", Ref("multipanelvqa.composite.augment:text_hint")),
    Augmentation("captions", Ref("multipanelvqa.composite.augment:captions")),
    Augmentation("captions_referenced", Ref("multipanelvqa.composite.augment:captions"), caption_in_question=True,
                 image_of="captions"),
)])


def register_augmentation(augmentation: Augmentation) -> Augmentation:
    """Add a synthetic config after every other (its rows are built with the rest)."""
    if augmentation.image_of is not None and augmentation.image_of not in AUGMENTATION_REGISTRY:
        raise ValueError(f"augmentation {augmentation.name!r} reuses the image of unknown config "
                         f"{augmentation.image_of!r}")
    return AUGMENTATION_REGISTRY.register(augmentation.name, augmentation)


def get_augmentation(name: str) -> Augmentation:
    return AUGMENTATION_REGISTRY.get(name)
