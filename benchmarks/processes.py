"""The environment of the new processes benchmarks time, as an installed package has it."""

from __future__ import annotations

import functools
import os
import subprocess
import sys


def environment(cache: str) -> dict[str, str]:
    """This process's environment with the compile cache in ``cache`` and the modules'
    bytecode written, once, before anything is timed: an installed package has it (pip
    compiles it; an editable install writes it on the first import), and a sandbox that
    forbids writing it would time Python compiling 150 modules (0.3 s) instead."""
    found = dict(os.environ, GPUISA_JIT_CACHE=cache)
    found.pop("PYTHONDONTWRITEBYTECODE", None)
    _write_bytecode(tuple(sorted(found.items())))
    return found


@functools.cache
def _write_bytecode(items: tuple[tuple[str, str], ...]) -> None:
    subprocess.run([sys.executable, "-c", "import gpuisa.pica.cli, gpuisa.a2xx.cli"],
                   check=True, env=dict(items))
