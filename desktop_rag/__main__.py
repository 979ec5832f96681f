"""Run the command line with `python -m desktop_rag`; also the installed app's entry point."""

import multiprocessing
import sys

if __name__ == "__main__":
    # In a frozen build, the reader process (multiprocessing "spawn") starts this executable
    # again: freeze_support runs the child's job and exits before the app would start.
    multiprocessing.freeze_support()

    from desktop_rag.cli import main

    sys.exit(main())
