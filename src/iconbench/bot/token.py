"""The GitHub token: read from the environment once, never printed, logged or shown in a repr.

The token only ever leaves this object as the argument to github3.py's login. Its ``repr``
and ``str`` are masked, and :class:`Redaction` is a logging filter that replaces it in every
record (github3.py and urllib3 log request details at DEBUG), so not even a traceback or a
debug log can show it.

>>> token = Token("ghp_example123")
>>> token, str(token), f"{token}"
(Token('***'), '***', '***')
>>> Redaction(token).redact("Authorization: token ghp_example123")
'Authorization: token ***'
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from iconbench.errors import IconbenchError

#: Environment variables searched, in order.
ENVIRONMENT = ("ICONBENCH_GITHUB_TOKEN", "GITHUB_TOKEN")
MASK = "***"


class Token:
    """A secret string whose every text form is masked."""

    __slots__ = ("_secret",)

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def reveal(self) -> str:
        """The secret itself, for the one call that logs in."""
        return self._secret

    def __repr__(self) -> str:
        return f"Token({MASK!r})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Token is not pickled")


def from_environment(environ: Mapping[str, str] | None = None) -> Token:
    """The first non-empty of :data:`ENVIRONMENT`; one line naming both when neither is set."""
    environ = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = environ.get(name, "").strip()
        if value:
            return Token(value)
    raise IconbenchError(
        f"no GitHub token: set {' or '.join(ENVIRONMENT)} to a token that may write issue "
        "comments and commit statuses of the repository (or use --dry-run)"
    )


class Redaction(logging.Filter):
    """Replace the token in every log record that passes a handler or logger."""

    def __init__(self, token: Token) -> None:
        super().__init__()
        self._secret = token.reveal()

    def redact(self, text: str) -> str:
        return text.replace(self._secret, MASK) if self._secret else text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._secret and self._secret in message:
            record.msg, record.args = self.redact(message), None
        return True
