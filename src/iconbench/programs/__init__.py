"""The catalog of every dycore and diffusion GT4Py program, its inputs and its backends.

- :mod:`~iconbench.programs.catalog`: discovery, :class:`ProgramSpec`, case ids
- :mod:`~iconbench.programs.imports`: the programs and the module graph read from source (no
  import): what a changed file affects, which module defines a program
- :mod:`~iconbench.programs.variants`: static-argument values ICON uses (reviewed data)
- :mod:`~iconbench.programs.inputs`: inputs built from the signature and a generated grid
- :mod:`~iconbench.programs.overrides`: reviewed per-program input overrides
- :mod:`~iconbench.programs.backends`: backend names -> gt4py backends
"""
