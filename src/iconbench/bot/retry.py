"""When a GitHub answer is worth asking again, and how long to wait first (bounded).

GitHub answers a busy or rate-limited client with 5xx, with ``429`` and ``Retry-After``, or
with ``403`` and ``X-RateLimit-Remaining: 0`` plus ``X-RateLimit-Reset`` (the epoch second
the quota returns). Those are retried after the wait the server asks for, or an exponential
backoff, but never longer than :attr:`RetryPolicy.max_wait_s` per wait and never more than
:attr:`RetryPolicy.attempts` tries: a CI job gives up with one line rather than hang.
Every other answer (401, 404, 422, an ordinary 403) is final.

>>> policy = RetryPolicy(attempts=4, base_s=0.5, max_wait_s=30)
>>> [policy.wait(503, {}, attempt) for attempt in (1, 2, 3)]
[0.5, 1.0, 2.0]
>>> policy.wait(429, {"Retry-After": "7"}, 1), policy.wait(429, {"Retry-After": "600"}, 1)
(7.0, None)
>>> policy.wait(403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1010"}, 1, now=1000)
10.0
>>> policy.wait(403, {"X-RateLimit-Remaining": "4999"}, 1), policy.wait(404, {}, 1)
(None, None)
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry (``base_s`` small in tests, a second in production)."""

    attempts: int = 5
    base_s: float = 1.0
    max_wait_s: float = 60.0

    def wait(
        self,
        status: int,
        headers: Mapping[str, str],
        attempt: int,
        now: float | None = None,
    ) -> float | None:
        """Seconds to wait before try ``attempt + 1``; None: do not retry (final or too long).

        A server that asks for more than ``max_wait_s`` is not waited for: the caller stops
        and says when the quota returns.
        """
        if attempt >= self.attempts:
            return None
        backoff = min(self.base_s * 2 ** (attempt - 1), self.max_wait_s)
        asked: float | None = None
        if status == 429 or (status == 403 and rate_limited(headers)):
            asked = _retry_after(headers, time.time() if now is None else now)
        elif status < 500:
            return None
        if asked is None:
            return backoff
        return asked if asked <= self.max_wait_s else None


def rate_limited(headers: Mapping[str, str]) -> bool:
    """A 403 is a rate limit when the quota is spent or the server asks to wait."""
    return _header(headers, "X-RateLimit-Remaining") == "0" or bool(_header(headers, "Retry-After"))


def reset_time(headers: Mapping[str, str]) -> str | None:
    """When the quota returns, as ``HH:MM:SS UTC``, for the line that says we gave up."""
    reset = _header(headers, "X-RateLimit-Reset")
    if not reset or not reset.isdigit():
        return None
    return time.strftime("%H:%M:%S UTC", time.gmtime(int(reset)))


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return str(value).strip()
    return None


def _retry_after(headers: Mapping[str, str], now: float) -> float | None:
    after = _header(headers, "Retry-After")
    if after and after.replace(".", "", 1).isdigit():
        return float(after)
    reset = _header(headers, "X-RateLimit-Reset")
    if reset and reset.isdigit():
        return max(0.0, float(reset) - now)
    return None
