"""Keeping Numba's on-disk cache of the JIT engine consistent with its sources.

Numba invalidates a cached function only when the file defining it changes, not when a
function it calls or a constant it compiled in changes.  The JIT's compiled code
depends on :mod:`.intrinsics`, :mod:`.stacks`, :mod:`.interpreter` and the modules
they take constants from; :data:`FINGERPRINT` is a hash of all of them.  Importing this
module (intrinsics and stacks do so first) deletes the cached code of those modules
if it was compiled from other sources, and :mod:`.runner` puts the fingerprint into every
generated kernel's file name.  Pure Python.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import threading

_HERE = os.path.dirname(os.path.abspath(__file__))
_ENGINE = os.path.dirname(_HERE)
_PICA = os.path.dirname(_ENGINE)
_MODULES = ("intrinsics", "stacks", "interpreter", "interpreter_alu", "loader", "codegen")
_SOURCES = [os.path.join(_HERE, f"{name}.py") for name in _MODULES] + [
    os.path.join(_ENGINE, name) for name in (
        "loading.py", "decode.py", os.path.join("rules", "primitives.py"),
        os.path.join("rules", "recipes.py"), os.path.join("rules", "source.py"))] + [
    os.path.join(_PICA, "isa.py"), os.path.join(os.path.dirname(_PICA), "floats.py"),
    os.path.join(_PICA, "flow", "stacks.py"), os.path.join(_PICA, "flow", "emission.py")]


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


def is_current(marker: str) -> bool:
    """Whether the file ``marker`` names this :data:`FINGERPRINT` (a directory whose
    compiled code was already made consistent with these sources)."""
    try:
        with open(marker, encoding="ascii") as file:
            return file.read() == FINGERPRINT
    except OSError:
        return False


def mark_current(marker: str) -> None:
    """Write :data:`FINGERPRINT` to ``marker``, replaced atomically (other processes may
    read it meanwhile); nothing if it cannot be written (a read-only installation: Numba
    then caches elsewhere or not at all)."""
    temporary = f"{marker}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(temporary, "w", encoding="ascii") as file:
            file.write(FINGERPRINT)
        os.replace(temporary, marker)
    except OSError:
        pass


def _drop_stale() -> None:
    directory = os.path.join(_HERE, "__pycache__")
    marker = os.path.join(directory, "gpuisa-jit.fingerprint")
    if is_current(marker):
        return
    for name in ("intrinsics", "stacks", "interpreter", "loader"):
        for path in glob.glob(os.path.join(directory, f"{name}.*.nb[ci]")):
            with contextlib.suppress(OSError):
                os.remove(path)
    mark_current(marker)


_drop_stale()
