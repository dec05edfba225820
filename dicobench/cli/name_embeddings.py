r"""Compute the text-embedding table of the catalogue's object names into --out (a .npz file).

Run after adding catalogue entries; the table the package ships is
`dicobench/kit/scene/data/name_embeddings.npz`, which a checkout replaces with the file written
here (`--out` is required: writing into an installed package would change it under every build
of that environment). By default it uses all-MiniLM-L6-v2 offline (the `embed` extra); with
--base-url it asks any OpenAI-compatible embeddings endpoint instead (e.g. --model
text-embedding-3-small, as the paper did).

    python -m dicobench.cli.name_embeddings --out name_embeddings.npz
    python -m dicobench.cli.name_embeddings --out name_embeddings.npz \
        --base-url https://api.openai.com/v1 --model text-embedding-3-small
"""

from __future__ import annotations

import argparse
import dataclasses
import os

from dicobench.kit.cli.argtypes import http_url
from dicobench.kit.scene.catalogue import FORMER_NAMES, VERSIONS, load_catalogue
from dicobench.kit.scene.embeddings import LOCAL_MODEL, embed_names, local_embedder, openai_embedder, save


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where to write the .npz table")
    parser.add_argument("--base-url", type=http_url, help="OpenAI-compatible endpoint (default: the local model)")
    parser.add_argument("--model", default="text-embedding-3-small", help="embedding model at --base-url")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    args = parser.parse_args(argv)
    names = list(dict.fromkeys(e.name for version in VERSIONS for e in load_catalogue(version)))  # every version's
    if args.base_url:
        embed = openai_embedder(args.model, base_url=args.base_url, api_key=os.environ.get(args.api_key_env))
        model = args.model
    else:
        try:
            embed, model = local_embedder(), LOCAL_MODEL
        except ImportError:
            parser.error("the local model needs the embed extra (pip install 'dicobench[embed]'), or pass --base-url")
    # a renamed object keeps its former name's vector (see FORMER_NAMES)
    table = embed_names([FORMER_NAMES.get(n, n) for n in names], embed, model)
    path = save(dataclasses.replace(table, names=tuple(names)), args.out)
    print(f"wrote {len(names)} name embeddings ({model}) to {path}")


if __name__ == "__main__":
    main()
