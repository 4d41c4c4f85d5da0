"""The files iconbench stores and is given: read with one-line errors, written whole.

Every format has its reader where the format lives (asv results in :mod:`iconbench.records.asv`,
baselines in :mod:`iconbench.baselines.format`, ...); they share this core:

* :mod:`iconbench.files.decode` turns bytes into JSON, TOML, JSON lines or text, and any
  missing, unreadable, binary or truncated file into ``IconbenchError("FILE: line N: ...")``;
* :mod:`iconbench.files.fields` gives typed access to decoded objects and turns a wrong
  schema (missing key, wrong type, negative time) into ``IconbenchError("FILE: key 'a.b': ...")``;
* :mod:`iconbench.files.atomic` writes a file through a temporary file and ``os.replace``, so
  that no reader ever sees half of it;
* :mod:`iconbench.files.directories` creates an output directory before the work, or says
  in one line why it cannot.
"""
