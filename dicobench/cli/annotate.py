"""`dicobench annotate`: plain photos to a COCO file (`dicobench.kit.photos.annotate`), for `--source coco:`."""

from __future__ import annotations

import argparse
from pathlib import Path

from dicobench.kit.photos.annotate import AnnotateOptions


def add_detection_arguments(p: argparse.ArgumentParser, required: bool) -> None:
    """The detector, segmenter, vocabulary and thresholds (`annotate`'s, and `build`'s for `folder:`)."""
    p.add_argument("--detector", required=required, default=None, metavar="transformers:MODEL",
                   help="zero-shot object detector through the transformers pipeline (OWLv2, OWL-ViT, Grounding DINO; "
                        "a Hub id or folder)")
    p.add_argument("--segmenter", default=None, metavar="transformers:MODEL",
                   help="promptable segmenter (SAM) refining each box to a mask (default: none; boxes are then "
                        "segmented by GrabCut)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="the vocabulary, one name per line (default: the object catalogue's names)")
    p.add_argument("--score-threshold", type=float, default=0.3,
                   help="a detection at least this sure is an object options may name (default 0.3)")
    p.add_argument("--absent-threshold", type=float, default=0.1,
                   help="a name with no detection at least this sure counts as absent from a photo, which commonality "
                        "rows rely on (default 0.1)")
    p.add_argument("--nms-iou", type=float, default=0.5,
                   help="boxes of one label overlapping by more than this IoU are one object (default 0.5)")


def detection_options(args: argparse.Namespace) -> AnnotateOptions | None:
    if args.detector is None:
        if args.segmenter or args.labels:
            from dicobench.kit.errors import UserError

            raise UserError("--segmenter and --labels refine a --detector: give --detector transformers:MODEL")
        return None
    from dicobench.kit.photos.annotate import read_labels

    labels = read_labels(args.labels) if args.labels else ()
    return AnnotateOptions(args.detector, args.segmenter, labels, args.score_threshold, args.absent_threshold,
                           args.nms_iou)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("annotate", help="detect and segment named objects in plain photos, written as a COCO file",
                       description="Run a zero-shot detector (and a segmenter) over every photo under PHOTOS and "
                                   "write the objects as a COCO instances file that `build --source coco:OUT:PHOTOS` "
                                   "reads. Resumes per photo; photos already in OUT are not sent to the models again.")
    p.add_argument("photos", type=Path, metavar="PHOTOS", help="folder of photos (searched recursively)")
    p.add_argument("--out", type=Path, required=True, help="the COCO file to write, e.g. annotations.json")
    add_detection_arguments(p, required=True)
    p.add_argument("--quiet", dest="progress", action="store_false", help="no progress bar")
    # --no-progress: the first release's name
    p.add_argument("--no-progress", dest="progress", action="store_false", help=argparse.SUPPRESS)
    p.set_defaults(func=_annotate)


def _annotate(args: argparse.Namespace) -> int:
    from dicobench.kit.photos.annotate import annotate

    out = annotate(args.photos, args.out, detection_options(args), args.progress)
    print(f"wrote {out} (build with --source coco:{out}:{args.photos})")
    return 0
