"""vouch's exception (a Python class, so that it pickles by name across processes)."""


class VouchError(Exception):
    """vouch could not verify: bad arguments or unreadable input (where the CLI exits 2).

    The message is the one the CLI prints after ``vouch: error: ``."""
