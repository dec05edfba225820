"""The package index's description of the project: README.md with its relative links resolved.

The index page resolves no relative link (`docs/images/dicobench.png`, `docs/index.md`,
`#citation`): each becomes absolute against the project's home, `url` in setup.cfg, at the tag
of this version. Until setup.cfg names a home, a relative image becomes its alt text and a
relative link its text, so nothing on the index page points nowhere. Everything else is in
setup.cfg.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
LINK = re.compile(r"(?P<image>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")


def index_description(readme: str, home: str | None, version: str) -> str:
    """`readme` with every relative link and image made absolute under `home` (files at tag
    `v<version>`: images as raw files, pages and anchors as rendered ones), or made plain text
    when `home` is None."""

    def resolve(match: re.Match) -> str:
        image, text, target = match["image"], match["text"], match["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            return match[0]
        if home is None:
            return f"*{text}*" if image else text
        path, _, anchor = target.partition("#")
        kind = "raw" if image else "blob"
        return (f"{image}[{text}]({home.rstrip('/')}/{kind}/v{version}/{path or 'README.md'}"
                f"{'#' + anchor if anchor else ''})")

    return LINK.sub(resolve, readme)


if __name__ == "__main__":
    metadata = configparser.ConfigParser()
    metadata.read(HERE / "setup.cfg")
    setup(long_description=index_description((HERE / "README.md").read_text(encoding="utf-8"),
                                             metadata["metadata"].get("url"), metadata["metadata"]["version"]))
