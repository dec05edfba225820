"""`python builder_scripts/compute_name_embeddings.py --out FILE` (from a checkout): runs
`python -m dicobench.cli.name_embeddings`, which the package ships."""

from dicobench.cli.name_embeddings import main

if __name__ == "__main__":
    main()
