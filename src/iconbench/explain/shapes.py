r"""The kernels a build launches, as its generated code shows them: the shape of a variant.

The static variants of one program often launch the same kernels: a static argument moves
a constant inside a kernel, not which kernels run. When the gate flags several variants of
one program on one backend together, one profile tells their kernels;
:mod:`iconbench.explain.run` profiles one variant per shape and lists the others as having
the same kernels. The shape is the sequence of kernels in the generated code, each as the
profiler would name and launch it, with the generators' numbered names normalised
(:func:`iconbench.explain.codediff.normalise`):

- gtfn: per launch its executor and functor (``stencil_executor _fun_N``; a vertical
  executor with its axis and the functor of each scan), and the block sizes of
  ``block_sizes_t``;
- DaCe on the GPU: per ``__global__`` kernel its launch bounds and name, per
  ``cudaLaunchKernel`` the kernel and its block; on the CPU (dace_cpu, the same SDFG's code)
  the OpenMP pragma and loop variable of each parallel map.

What a variant's static arguments change around the same kernels is left out: the argument
lists (gtfn's ``.arg(...)`` and ``assign``'s indices, a DaCe kernel's parameters: with IAU
active ``compute_rho_theta_pgrad_and_update_vn`` passes ``iau_wgt_dyn`` and
``normal_wind_iau_increment`` more, in the limited area ``grf_tend_vn``) and the domain
bounds (compile-time constants of a build, gtfn's ``unstructured_domain(...)``, DaCe's grid
and loop ranges: bounds that move launch the same kernels). On the H100 the four variants of
that program launch the same 10 gtfn kernels; read as whole lines (icon4py #1405's check,
2026-11-27) they were four shapes, each profiled.

One launch line of that check's head build, as the IAU variant writes it (two arguments
more), and over a domain that starts later:

>>> from iconbench.explain.sources import Sources
>>> launch = ("make_backend(backend, gtfn::unstructured_domain(::gridtools::tuple((67129 - 0),"
...           "(80 - 0)), ::gridtools::tuple(0,0), connectivities__...)).stencil_executor()()"
...           ".arg(next_vn).arg(current_vn){more}.assign(0_c, _fun_7() , 1_c,2_c{indices})"
...           ".execute();")
>>> plain = launch.format(more="", indices="")
>>> iau = launch.format(more=".arg(gridtools::stencil::global_parameter(iau_wgt_dyn))"
...                          ".arg(normal_wind_iau_increment)", indices=",3_c,4_c")
>>> later = plain.replace("(67129 - 0)", "(67129 - 7742)").replace("(0,0)", "(7742,0)")
>>> launches(plain) == launches(iau) == launches(later) == ("stencil_executor _fun_N",)
True
>>> one = Sources({"p.cuh": plain + "\n"}, "f1", "build folder")
>>> more = Sources({"p.cuh": plain + "\n" + iau + "\n"}, "f2", "build folder")  # a kernel more
>>> of(one) == of(Sources({"p.cuh": iau + "\n"}, "f3", "build folder")), of(one) == of(more)
(True, False)
>>> of(Sources({"p.cuh": "int x;\n"}, "f4", "build folder")) is None  # no kernel found
True
"""

from __future__ import annotations

import re

from iconbench.explain.codediff import normalise
from iconbench.explain.sources import Sources

Shape = tuple[str, ...]

#: gtfn's executors: ``.stencil_executor()`` and ``.vertical_executor(AXIS)``
_EXECUTOR = re.compile(r"\.(stencil_executor|vertical_executor)\(")
#: the functor of each of a launch's ``assign(N_c, FUNCTOR(), ...)``
_ASSIGN = re.compile(r"\bassign\(\s*\d+_c\s*,\s*([A-Za-z_]\w*)\s*\(\)")
#: gtfn's block sizes, declared once (the bindings only name ``block_sizes_t``)
_BLOCK_SIZES = re.compile(r"^using block_sizes_t\s*=")
#: a DaCe kernel's prototype: what comes before its name (launch bounds), its name
_KERNEL = re.compile(r"^__global__\s+void\s+((?:__\w+__\([^()]*\)\s*)*)([A-Za-z_]\w*)\s*\(")
#: a DaCe launch: ``cudaLaunchKernel((void*)NAME, dim3(GRID), dim3(BLOCK), ...`` (or hip's)
_LAUNCH = re.compile(r"\b(\w*)LaunchKernel\(")
#: a parallel map of DaCe's CPU code: its pragma, then its loop's variable
_CPU_MAP = re.compile(r"^#pragma omp parallel for\b")
_LOOP = re.compile(r"^for\s*\(\s*(?:auto|int|long|[\w:]+)\s+(\w+)\s*=")


def launches(line: str) -> Shape:
    """The kernels ``line`` (one line of generated code, stripped) launches or declares.

    >>> launches("using block_sizes_t = meta::list<meta::list<horizontal, int_c<32>>>;")
    ('using block_sizes_t = meta::list<meta::list<horizontal, int_c<32>>>;',)
    >>> launches("__global__ void  __launch_bounds__(256) map_0_fieldop_0_0_34(const double * "
    ...          "__restrict__ current_vn, double * __restrict__ next_vn) {")
    ('__global__ __launch_bounds__(256) map_N_fieldop_N_N_N',)
    >>> launches("gpuError_t __err = cudaLaunchKernel((void*)map_0_fieldop_0_0_41, "
    ...          "dim3(int_ceil(int_ceil(42 - 7, 1), 32), 2, 1), dim3(32, 8, 1), "
    ...          "map_0_fieldop_0_0_41_args, 0, nullptr);")
    ('cudaLaunchKernel map_N_fieldop_N_N_N block (32, 8, 1)',)
    >>> launches("make_backend(backend, d).vertical_executor(K)().arg(a).arg(b)"
    ...          ".assign(0_c, _fun_3(), 0.0, 1_c).execute();")
    ('vertical_executor(K) _fun_N',)
    >>> launches("return generated::p(gridtools::hymap::keys<>::make_values(), block_sizes_t{});")
    ()
    """
    found: list[str] = []
    if executor := _EXECUTOR.search(line):
        axis = "".join(_arguments(line, executor.end()))
        functors = " ".join(_ASSIGN.findall(line, executor.end()))
        found.append(normalise(f"{executor.group(1)}{f'({axis})' if axis else ''} {functors}"))
    elif _BLOCK_SIZES.match(line):
        found.append(normalise(line))
    elif kernel := _KERNEL.match(line):
        bounds, name = kernel.groups()
        found.append(normalise(" ".join(("__global__", *bounds.split(), name))))
    elif (launch := _LAUNCH.search(line)) and len(called := _arguments(line, launch.end())) > 2:
        name, block = called[0].rpartition(")")[2], called[2].removeprefix("dim3")
        found.append(normalise(f"{launch.group(1)}LaunchKernel {name} block {block}"))
    return tuple(found)


def _arguments(line: str, start: int) -> list[str]:
    """The arguments of the call whose ``(`` ends at ``start``, split at its own commas.

    >>> _arguments("f((void*)k, dim3(g(a, 1), 2, 1), dim3(32, 8, 1), k_args);", 2)
    ['(void*)k', 'dim3(g(a, 1), 2, 1)', 'dim3(32, 8, 1)', 'k_args']
    """
    found: list[str] = []
    depth, begin = 0, start
    for at in range(start, len(line)):
        char = line[at]
        if char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char in ",)" and not depth:
            found.append(line[begin:at].strip())
            begin = at + 1
            if char == ")":
                break
    return found


def of(sources: Sources) -> Shape | None:
    """The kernels of ``sources`` in file and line order (``None``: none found)."""
    found: list[str] = []
    for path in sorted(sources.files):
        lines = [line.strip() for line in sources.files[path].splitlines()]
        for number, line in enumerate(lines):
            if _CPU_MAP.match(line) and number + 1 < len(lines):
                loop = _LOOP.match(lines[number + 1])
                found.append(normalise(f"{line} {loop.group(1) if loop else lines[number + 1]}"))
            else:
                found += launches(line)
    return tuple(found) or None
