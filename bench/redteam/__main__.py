"""`python -m redteam` (from bench/), and `bench/run.py --only redteam`."""

import sys

from redteam.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
