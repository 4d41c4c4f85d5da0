r"""The kernels a build launches, as its generated code shows them: the shape of a variant.

The static variants of one program often launch the same kernels: a static argument moves
a constant inside a kernel, not which kernels run. When the gate flags several variants of
one program on one backend together, one profile tells their kernels;
:mod:`iconbench.explain.run` profiles one variant per shape and lists the others as having
the same kernels. The shape is the sequence of launch sites in the generated code, each line
with the generators' numbered names normalised (:func:`iconbench.explain.codediff.normalise`):

- gtfn: a kernel per stencil or vertical executor (``.stencil_executor()``,
  ``.vertical_executor(``), launched with the block sizes of ``block_sizes_t``;
- DaCe: a kernel per ``__global__`` function and ``cudaLaunchKernel`` on the GPU; on the
  CPU (dace_cpu, whose code is the same SDFG's) the loop header under each
  ``#pragma omp parallel for``.

>>> from iconbench.explain.sources import Sources
>>> code = "struct _fun_2 {};\nmake_backend(b, d).stencil_executor()().assign(0_c, _fun_2());\n"
>>> one = Sources({"p.hpp": code}, "f1", "build folder")
>>> other = Sources({"p.hpp": code.replace("_fun_2", "_fun_0")}, "f2", "build folder")
>>> of(one) == of(other), len(of(one))
(True, 1)
>>> of(Sources({"p.hpp": "int x;\n"}, "f3", "build folder")) is None  # no kernel found
True
"""

from __future__ import annotations

from iconbench.explain.codediff import normalise
from iconbench.explain.sources import Sources

#: A line that launches, declares or configures kernels.
LAUNCHES = (".stencil_executor()", ".vertical_executor(", "block_sizes_t", "__global__",
            "cudaLaunchKernel")  # fmt: skip
#: The line before a DaCe CPU map's loop header.
CPU_MAP = "#pragma omp parallel for"

Shape = tuple[str, ...]


def of(sources: Sources) -> Shape | None:
    """The launch sites of ``sources`` in file and line order (``None``: none found)."""
    found = []
    for path in sorted(sources.files):
        lines = sources.files[path].splitlines()
        for number, line in enumerate(lines):
            text = line.strip()
            if any(mark in text for mark in LAUNCHES):
                found.append(normalise(text))
            elif text == CPU_MAP and number + 1 < len(lines):
                found.append(normalise(lines[number + 1].strip()))
    return tuple(found) or None
