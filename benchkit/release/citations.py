"""BibTeX of the two papers the benchmarks follow, for dataset cards and metric modules."""

DICOBENCH = """\
@misc{dicobench,
  title = {DiCoBench: Benchmarking Multi-Image Fine-Grained Perception via Differential and Commonality Visual Cues},
  year = {2026},
  howpublished = {arXiv:2606.26602},
  url = {https://arxiv.org/abs/2606.26602}
}"""

MULTIPANELVQA = """\
@inproceedings{fan2024multipanelvqa,
  title = {Muffin or Chihuahua? Challenging Multimodal Large Language Models with Multipanel VQA},
  author = {Fan, Yue and Gu, Jing and Zhou, Kaiwen and Yan, Qianqi and Jiang, Shan and Kuo, Ching-Chen and Zhao, Yang and Guan, Xinze and Wang, Xin Eric},
  booktitle = {ACL},
  year = {2024}
}"""

BOTH = DICOBENCH + "\n\n" + MULTIPANELVQA
