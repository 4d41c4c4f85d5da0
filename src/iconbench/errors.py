"""The one exception type that iconbench shows to users as a one-line error.

Anything raised as :class:`IconbenchError` is printed by the CLI as ``iconbench: error: …``
with exit status 2 and no traceback, so its message must name the thing that is wrong and
what to do about it. Every other exception is a bug and keeps its traceback.
"""


class IconbenchError(Exception):
    """A user-facing error: bad input, a missing file, an unknown name.

    >>> str(IconbenchError("unknown backend 'gtfn_tpu'; choose one of: embedded, gtfn_cpu"))
    "unknown backend 'gtfn_tpu'; choose one of: embedded, gtfn_cpu"
    """
