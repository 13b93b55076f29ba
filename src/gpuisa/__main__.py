"""``python -m gpuisa``: the PICA200 command line (``python -m gpuisa.a2xx`` for A2XX)."""

from .pica.cli import main

raise SystemExit(main())
