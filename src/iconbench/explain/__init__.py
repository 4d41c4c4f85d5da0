"""Why a flagged GPU benchmark changed, found after the verdict (``iconbench explain``).

For each regression or improvement on a GPU backend, each side's program call is run again
in that side's own environment (its commit's sources first on the path, its build cache):

- :mod:`.profile`: under Nsight Compute, a few calls inside the NVTX range; the kernels of
  one call with their device time, DRAM bytes, registers and achieved occupancy;
- :mod:`.sources`: the generated source of the build the side ran (gtfn's build folder, or
  DaCe's code generated again from the program's SDFG);
- :mod:`.codediff`: the two sources as a bounded unified diff, the names the generators
  number normalised (a renumbering is no change);
- :mod:`.shapes`: the kernels a variant's code launches, so that variants flagged together
  with the same kernels are profiled once;
- :mod:`.run`: which benchmarks, in what order, and the :class:`iconbench.records.summary.Why`
  entries added to the gate summary.
"""
