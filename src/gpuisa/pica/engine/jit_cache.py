"""Keeping Numba's on-disk cache of the JIT engine consistent with its sources.

Numba invalidates a cached function only when the file defining it changes, not when a
function it calls or a constant it compiled in changes.  The JIT's compiled code
depends on :mod:`.jit_rules`, :mod:`.jit_stacks`, :mod:`.jit_interp` and the modules
they take constants from; :data:`FINGERPRINT` is a hash of all of them.  Importing this
module (jit_rules and jit_stacks do so first) deletes the cached code of those modules
if it was compiled from other sources, and :mod:`.jit` puts the fingerprint into every
generated kernel's file name.  Pure Python.
"""

from __future__ import annotations

import glob
import hashlib
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODULES = ("jit_rules", "jit_stacks", "jit_interp", "jit_alu", "jit_loader", "jit_codegen",
            "loading", "decode", os.path.join("rules", "primitives"),
            os.path.join("rules", "recipes"), os.path.join("rules", "source"))
_SOURCES = [os.path.join(_HERE, f"{name}.py") for name in _MODULES] + [
    os.path.join(_HERE, "..", "isa.py"), os.path.join(_HERE, "..", "..", "floats.py"),
    os.path.join(_HERE, "..", "flow", "stacks.py"),
    os.path.join(_HERE, "..", "flow", "emission.py")]


def _fingerprint() -> str:
    # Numba's version from its metadata: importing Numba takes 0.3-0.6 s, and
    # engine="auto" asks whether a kernel is on disk before it knows Numba is needed.
    from importlib.metadata import version

    digest = hashlib.sha256(version("numba").encode())
    for path in _SOURCES:
        with open(path, "rb") as file:
            digest.update(file.read())
    return digest.hexdigest()[:16]


#: A hash of the sources the JIT's compiled code depends on (and of Numba's version).
FINGERPRINT = _fingerprint()


def _drop_stale() -> None:
    directory = os.path.join(_HERE, "__pycache__")
    marker = os.path.join(directory, "gpuisa-jit.fingerprint")
    try:
        with open(marker, encoding="ascii") as file:
            if file.read() == FINGERPRINT:
                return
    except OSError:
        pass
    try:
        for name in ("jit_rules", "jit_stacks", "jit_interp", "jit_loader"):
            for path in glob.glob(os.path.join(directory, f"{name}.*.nb[ci]")):
                os.remove(path)
        os.makedirs(directory, exist_ok=True)
        with open(marker, "w", encoding="ascii") as file:
            file.write(FINGERPRINT)
    except OSError:
        pass  # a read-only installation: Numba then caches elsewhere or not at all


_drop_stale()
