"""Errors that the command line reports as one line with exit status 2."""


class UserError(Exception):
    """Bad input from the user: unknown names, bad counts, unreadable files, wrong sizes."""


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none): what a
    one-line error quotes of a library's failure."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
