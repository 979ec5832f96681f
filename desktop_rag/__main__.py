"""Run the command line with `python -m desktop_rag`."""

import sys

from desktop_rag.cli import main

if __name__ == "__main__":
    sys.exit(main())
