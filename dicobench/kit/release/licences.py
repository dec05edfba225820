"""The licence a build's card states, following what is in its images.

Procedural images are drawn from Font Awesome glyphs (CC BY 4.0, with attribution); photos
carry their owners' terms, which the toolkit knows for the public sources it reads (V*,
MagicBrush, VQAv2) and must be told for a user's own photos (`push --license`). Until it is
told, such a card says `license: unknown` and `push` refuses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dicobench.kit.errors import UserError
from dicobench.kit.io.shards import Location, child, exists, read_json, write_json_atomic
from dicobench.kit.scene.catalogue import LICENCE as GLYPH_ATTRIBUTION

USER_LICENCE_FILE = ".license.json"  # beside README.md; written by `push --license`
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Licence:
    """A Hub licence id (`license:`), with `license_name`/`license_link` when it is `other`,
    and the attribution text the card's licence section shows."""

    id: str
    text: str
    name: str | None = None
    link: str | None = None

    def metadata(self) -> dict:
        meta = {"license": self.id}
        if self.id == "other":
            meta.update({k: v for k, v in (("license_name", self.name), ("license_link", self.link)) if v})
        return meta


GLYPHS = Licence("cc-by-4.0", "Generated images and data: CC BY 4.0. " + GLYPH_ATTRIBUTION)
VSTAR = Licence(
    "other",
    "Base photos: V* Bench (Wu and Xie, 2023; craigwu/vstar_bench), under the terms of its release; its "
    "photos come from SA-1B (Segment Anything, Meta AI) under the SA-1B dataset licence.",
    name="vstar-bench-terms",
    link="https://huggingface.co/datasets/craigwu/vstar_bench",
)
COCO = Licence(
    "other",
    "Panel photos from MagicBrush (Zhang et al., 2023; osunlp/MagicBrush; annotations CC BY 4.0) and/or "
    "VQAv2 (Goyal et al., 2017; annotations CC BY 4.0); their images come from MS COCO, under the Flickr "
    "terms of use. " + GLYPH_ATTRIBUTION,
    name="cc-by-4.0-and-coco-flickr-terms",
    link="https://cocodataset.org/#termsofuse",
)


def unknown(what: str) -> Licence:
    """The licence of photos nobody has stated yet."""
    return Licence(UNKNOWN, f"{what}: the licence of their owners, not stated yet (`push --license ID` states it).")


def annotated_licences(what: str, licences: list[dict], unstated: int) -> Licence:
    """The licence of photos whose annotation file states one per photo (COCO's `licenses` and
    `images[].license`): `licences` as `{"name", "url", "photos"}`, most photos first. `unknown`
    while any photo names none; else the one licence, or `other` naming them all."""
    parts = [f"{l['name']}" + (f" ({l['url']})" if l.get("url") else "") + f": {l['photos']} photos" for l in licences]
    if unstated:
        parts.append(f"{unstated} photos with no licence stated")
    text = f"{what}, under the licences their annotation file gives: " + "; ".join(parts) + "."
    if unstated or not licences:
        return Licence(UNKNOWN, text + " State the licence of the rest with `push --license ID`.")
    names = [l["name"] for l in licences]
    return Licence("other", text, name="; ".join(names), link=licences[0].get("url") if len(licences) == 1 else None)


def user_licence(out: Location) -> Licence | None:
    """The licence stated with `push --license`, if any."""
    path = child(out, USER_LICENCE_FILE)
    if not exists(path):
        return None
    data = read_json(path)
    return Licence(data["id"], data["text"], data.get("name"), data.get("link"))


def state_licence(out: Location, licence_id: str, name: str | None = None, link: str | None = None) -> Licence:
    """Record the licence of a build's photos (checked: a Hub-style id; `other` needs a name)."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", licence_id or "") or licence_id == UNKNOWN:
        raise UserError(f"--license {licence_id!r}: expected a Hub licence id such as cc-by-4.0, mit or other")
    if licence_id == "other" and not name:
        raise UserError("--license other needs --license-name (and preferably --license-link)")
    text = f"Photos: {name or licence_id}" + (f" ({link})" if link else "") + ", as stated by the publisher."
    licence = Licence(licence_id, text, name, link)
    write_json_atomic(child(out, USER_LICENCE_FILE), {"id": licence_id, "text": text, "name": name, "link": link})
    return licence


def combine(licences: list[Licence]) -> Licence:
    """One licence for a card whose splits or sources differ: the common one, `unknown` while any
    is unknown, else `other` naming them all."""
    unique = list(dict.fromkeys(licences))
    if len(unique) == 1:
        return unique[0]
    text = " ".join(dict.fromkeys(l.text for l in unique))
    if any(l.id == UNKNOWN for l in unique):
        return Licence(UNKNOWN, text)
    return Licence("other", text, name="mixed: " + ", ".join(dict.fromkeys(l.name or l.id for l in unique)))
