"""Reading the files iconbench stores and is given, with one-line errors that name the place.

Every format has its reader where the format lives (asv results in :mod:`iconbench.results`,
baselines in :mod:`iconbench.baselines.format`, ...); they share this core:

* :mod:`iconbench.files.decode` turns bytes into JSON, TOML, JSON lines or text, and any
  missing, unreadable, binary or truncated file into ``IconbenchError("FILE: line N: ...")``;
* :mod:`iconbench.files.fields` gives typed access to decoded objects and turns a wrong
  schema (missing key, wrong type, negative time) into ``IconbenchError("FILE: key 'a.b': ...")``.
"""
