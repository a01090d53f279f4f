"""Errors a user can cause: the CLI shows them as one line and exits non-zero."""


class UserError(Exception):
    """Bad input from the user (a path, a URL, a manifest, an id): never a bug of ours."""

    exit_code = 2


class NotACorpus(UserError):
    """The path given as a corpus holds no corpus settings file."""


class ManifestError(UserError):
    """A manifest that cannot be imported as it is; nothing was written."""


class CorpusDamaged(UserError):
    """`locleg check` found originals or rows that are wrong: exit 1, as a failed test would."""

    exit_code = 1
