"""A stack that cannot import, build or run a program: which component fails on which name.

A newer gt4py or dace with an older icon4py fails where one component calls a name another
no longer has (icon4py 0.4.1 calls ``gtfn.GTFNBackendFactory``; gt4py 1.2.3 has none). That
is a result about the stack, not a bug of iconbench, so it is told as one line:

    stack gt4py 1.2.3 + dace 2.0.0a10 + icon4py 0.4.1 is broken: icon4py's code fails on
    'GTFNBackendFactory' of gt4py (AttributeError) at icon4py/model/common/model_backends.py:72

:func:`classify` reads it from the exception: the failing name from the exception itself
(``AttributeError.name``/``obj``, ``ImportError.name``/``name_from``, ``NameError.name``),
whose code fails from the innermost frame outside iconbench, which component a frame
belongs to from its module's name (so an overlay, a source tree or a wheel are told alike).
An exception raised by iconbench's own code about iconbench's own names stays a bug with its
traceback.
"""

from __future__ import annotations

import dataclasses
import traceback
import types

#: The packages whose code makes a stack, by top-level module.
COMPONENT_MODULES = {"gt4py": "gt4py", "dace": "dace", "icon4py": "icon4py"}
#: Exceptions that say "this name is not what the caller expects": an API that moved.
_API_ERRORS = (AttributeError, ImportError, NameError, TypeError)


@dataclasses.dataclass(frozen=True)
class StackBreak:
    """Where a stack breaks: ``component``'s code fails on ``name`` (of ``owner``) at ``frame``.

    >>> b = StackBreak("icon4py", "GTFNBackendFactory", "gt4py", "AttributeError",
    ...                "icon4py/model/common/model_backends.py:72", "gt4py 1.2.3 + icon4py 0.4.1")
    >>> b.line()
    "stack gt4py 1.2.3 + icon4py 0.4.1 is broken: icon4py's code fails on 'GTFNBackendFactory' \
of gt4py (AttributeError) at icon4py/model/common/model_backends.py:72"
    >>> StackBreak.from_dict(b.as_dict()) == b
    True
    """

    component: str
    name: str
    owner: str
    error: str
    frame: str
    stack: str

    def line(self) -> str:
        """The one line every command prints for it."""
        of = f" of {self.owner}" if self.owner and self.owner != self.component else ""
        return (
            f"stack {self.stack} is broken: {self.component}'s code fails on {self.name!r}{of} "
            f"({self.error}) at {self.frame}"
        )

    def as_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> StackBreak:
        return cls(**{f.name: str(data.get(f.name, "")) for f in dataclasses.fields(cls)})


class BrokenStackError(Exception):
    """Raised where a stack's break is known (a worker's record read back): it carries it."""

    def __init__(self, broken: StackBreak, text: str = "", side: str = "") -> None:
        super().__init__(text or broken.line())
        self.broken = broken
        self.side = side  # the side of a comparison whose stack broke ("base", "head"; "": none)


def component_of(module: str) -> str:
    """The component a module name belongs to: ``gt4py``, ``dace``, ``icon4py``, else its top.

    >>> component_of("icon4py.model.common.model_backends"), component_of("iconbench.suite")
    ('icon4py', 'iconbench')
    """
    top = module.partition(".")[0]
    return next((c for c, m in COMPONENT_MODULES.items() if m == top), top)


def _frames(tb: types.TracebackType | None) -> list[tuple[str, str, int, str]]:
    """``(module, file, line, function)`` of each frame, outermost first."""
    found = []
    while tb is not None:
        frame = tb.tb_frame
        found.append((str(frame.f_globals.get("__name__", "")), frame.f_code.co_filename,
                      tb.tb_lineno, frame.f_code.co_name))  # fmt: skip
        tb = tb.tb_next
    return found


def _failing_name(error: BaseException) -> tuple[str, str]:
    """The name the code failed on and the component it was looked up in (``''``: unknown)."""
    if isinstance(error, AttributeError):
        obj = getattr(error, "obj", None)
        where = obj.__name__ if isinstance(obj, types.ModuleType) else type(obj).__module__
        return str(error.name or ""), component_of(where) if obj is not None else ""
    if isinstance(error, ImportError):
        module = str(error.name or "")
        name = str(getattr(error, "name_from", None) or module.rpartition(".")[2] or module)
        return name, component_of(module) if module else ""
    if isinstance(error, NameError):
        return str(error.name or ""), ""
    return "", ""


def _shown(file: str, module: str, line: int) -> str:
    """``icon4py/model/common/model_backends.py:72``: the file from its package down."""
    parts = module.split(".")
    path = file.replace("\\", "/")
    marker = "/" + "/".join(parts[:1]) + "/"
    cut = path.rfind(marker)
    return f"{path[cut + 1 :] if cut >= 0 else path}:{line}"


def classify(error: BaseException, stack: str | None = None) -> StackBreak | None:
    """The stack break ``error`` is, or ``None`` for anything else (a bug keeps its traceback).

    It is a break when its type says an API moved and either the innermost frame outside
    iconbench belongs to a stack component, or iconbench's code failed on a component's name.
    ``stack``: the stack's description (default: the running process's).
    """
    if isinstance(error, BrokenStackError):
        return error.broken
    if not isinstance(error, _API_ERRORS):
        return None
    frames = _frames(error.__traceback__)
    outside = [f for f in frames if component_of(f[0]) in COMPONENT_MODULES]
    name, owner = _failing_name(error)
    if outside:
        module, file, line, _ = outside[-1]
        component = component_of(module)
    elif owner in COMPONENT_MODULES and frames:
        module, file, line, _ = frames[-1]
        component = component_of(module)
    else:
        return None
    if not name:  # a TypeError: the call that failed is what names it
        name = next((f[3] for f in reversed(outside) if component_of(f[0]) == component), "?")
    text = traceback.format_exception_only(type(error), error)[-1].strip()
    return StackBreak(component, name, owner, text.partition(":")[0], _shown(file, module, line),
                      stack or running_stack())  # fmt: skip


def running_stack() -> str:
    """``gt4py 1.2.3 + dace 2.0.0a10 + icon4py 0.4.1``: what this process imports."""
    from iconbench.imported import imported

    return " + ".join(
        f"{label} {imported(dist).version}"
        for label, dist in (("gt4py", "gt4py"), ("dace", "dace"), ("icon4py", "icon4py-common"))
    )
