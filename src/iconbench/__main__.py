"""``python -m iconbench`` runs the CLI (the spawn-safe guard gt4py's process pool needs)."""

import sys

from iconbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
