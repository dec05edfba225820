"""The project's error types, apart from any command line: the library raises them, the CLI reports them."""


class UserError(Exception):
    """Bad input from the user: unknown names, bad counts, unreadable files, wrong sizes (the
    command line reports it as one line with exit status 2)."""


class ModelError(RuntimeError):
    """A model call failed and the caller asked to stop there (`raise_on_error`)."""


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none): what a
    one-line error quotes of a library's failure."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
