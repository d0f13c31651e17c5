"""``python -m mcmc_pairs``: the ``mcmc-pairs`` command line."""

from mcmc_pairs.comparisons.cli import main

raise SystemExit(main())
