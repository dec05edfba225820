"""A toy runner: it answers every prompt with the reply its one option gives (`--toy-reply`)."""

from dicobench.kit.eval.runners import Reply, Runner, RunnerOption

REPLY = RunnerOption("toy_reply", "toy: the reply to every prompt (default A)")


class Constant(Runner):
    options = (REPLY,)

    def __init__(self, model: str, *, toy_reply: str = "A"):
        self.model, self.reply = model, toy_reply

    def generate(self, prompts):
        return [Reply(self.reply) for _ in prompts]
