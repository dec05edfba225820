"""BibTeX of the two papers the benchmarks follow, for dataset cards and metric modules.

Each entry holds only what the paper itself states: DiCoBench's text gives its title and arXiv
identifier (2606.26602, so 2026) but no author names; MultipanelVQA's gives its title and
authors but no venue, year or identifier. Nothing is filled in from elsewhere.
"""

DICOBENCH = """\
@misc{dicobench,
  title = {DiCoBench: Benchmarking Multi-Image Fine-Grained Perception via Differential and Commonality Visual Cues},
  year = {2026},
  eprint = {2606.26602},
  archivePrefix = {arXiv},
  url = {https://arxiv.org/abs/2606.26602}
}"""

MULTIPANELVQA = """\
@misc{fan_multipanelvqa,
  title = {Muffin or Chihuahua? Challenging Multimodal Large Language Models with Multipanel VQA},
  author = {Fan, Yue and Gu, Jing and Zhou, Kaiwen and Yan, Qianqi and Jiang, Shan and Kuo, Ching-Chen and \
Zhao, Yang and Guan, Xinze and Wang, Xin Eric}
}"""

BOTH = DICOBENCH + "\n\n" + MULTIPANELVQA
