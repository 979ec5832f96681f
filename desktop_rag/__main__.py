"""Run the command line with `python -m desktop_rag`."""

import sys

from desktop_rag.cli import main

sys.exit(main())
