"""`python -m taskbench` is the `taskbench` console script."""

import sys

from taskbench.cli import main

sys.exit(main())
