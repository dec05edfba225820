"""Errors that the command line reports as one line with exit status 2."""


class UserError(Exception):
    """Bad input from the user: unknown names, bad counts, unreadable files, wrong sizes."""
