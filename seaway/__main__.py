"""``python -m seaway``: the same entry point as the ``seaway`` console script."""

from seaway.cli.main import main

raise SystemExit(main())
