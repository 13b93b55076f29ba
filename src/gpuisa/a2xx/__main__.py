"""``python -m gpuisa.a2xx``: the ``a2xx`` command line."""

from .cli import main

raise SystemExit(main())
