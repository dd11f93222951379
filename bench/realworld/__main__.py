"""`python -m realworld` (from bench/), and `bench/run.py --only realworld`."""

import sys

from realworld.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
