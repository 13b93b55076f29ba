"""Keeping Numba's on-disk cache of the JIT engine consistent with its sources.

Numba invalidates a cached function only when the file defining it changes, not when a
function it calls or a constant it compiled in changes.  The JIT's compiled code
depends on :mod:`.intrinsics`, :mod:`.stacks`, :mod:`.interpreter` and the modules
they take constants from; :data:`FINGERPRINT` is a hash of all of them.  Importing this
module (intrinsics and stacks do so first) deletes the cached code of those modules
if it was compiled from other sources, and :mod:`.runner` puts the fingerprint into every
generated kernel's file name.  Pure Python.

Compiled code that does not load (a damaged index or data file of Numba's) is discarded
with a :class:`DamagedCacheWarning` and compiled again (:func:`guard`, installed as soon
as Numba's cache module is imported), never trusted.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import importlib.abc
import importlib.util
import os
import re
import sys
import threading
import warnings

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
        with open(marker, "rb") as file:
            return file.read(len(FINGERPRINT) + 1) == FINGERPRINT.encode("ascii")
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


# -- damaged compiled code ----------------------------------------------------------------


class DamagedCacheWarning(RuntimeWarning):
    """A file of the compiled-code cache did not load; it was discarded and rebuilt."""


def warn_damaged(path: str, error: object) -> None:
    text = str(error).splitlines()[0][:200] if str(error) else ""
    warnings.warn(f"{path}: damaged ({type(error).__name__}{': ' if text else ''}{text}); "
                  f"discarded, made again", DamagedCacheWarning, stacklevel=3)


#: Modules whose functions Numba caches for gpuisa: the compiled engine's own, and the
#: generated ones (:func:`.kernels.generated_name`).
_OURS = re.compile(r"gpuisa\.pica\.engine\.compiled\.\w+|pica_[a-z]+_[0-9a-f]{8}_[0-9a-f]{24}")


def _discard(cache: object, error: Exception) -> bool:
    """Delete the index and data files of a Numba cache of gpuisa's whose loading raised
    ``error`` (Numba then compiles and saves the function again); False if the cache is
    not gpuisa's or has no files (the error is not about them)."""
    module = getattr(getattr(cache, "_py_func", None), "__module__", "") or ""
    files = getattr(cache, "_cache_file", None)
    index = getattr(files, "_index_path", None)
    if not _OURS.fullmatch(module) or index is None or not os.path.exists(index):
        return False
    data = glob.glob(f"{glob.escape(index.removesuffix('.nbi'))}.*.nbc")
    for path in (index, *data):
        with contextlib.suppress(OSError):  # another process may have removed it first
            os.remove(path)
    warn_damaged(index, error)
    return True


def guard(caching: object | None = None) -> None:
    """Make Numba's loading of gpuisa's compiled code self-healing: whatever loading an
    index or data file raises (EOFError for an empty index, UnpicklingError for garbage,
    ...), the files are discarded and the function compiled again.  Numba writes them
    atomically (a temporary file renamed into place), so another process never reads
    half a file; damage comes from outside.  Idempotent; ``caching`` is
    ``numba.core.caching`` (imported if not given)."""
    if caching is None:
        import numba.core.caching as caching
    cache_class = getattr(caching, "Cache", None)
    original = getattr(cache_class, "load_overload", None)
    if original is None or getattr(original, "_gpuisa_guard", False):
        return  # another Numba (nothing to guard), or guarded already

    @functools.wraps(original)
    def load_overload(self, sig, target_context):
        try:
            return original(self, sig, target_context)
        except Exception as error:
            if not _discard(self, error):
                raise
            return None

    load_overload._gpuisa_guard = True
    cache_class.load_overload = load_overload


class _GuardOnImport(importlib.abc.MetaPathFinder):
    """Installs :func:`guard` right after ``numba.core.caching`` is imported (this module
    is imported before Numba when only the kernels' names are asked for); asked about
    that one module, once."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba.core.caching":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _GuardingLoader(spec.loader)
        return spec


class _GuardingLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        guard(module)

    def __getattr__(self, name: str):
        return getattr(self._loader, name)


if "numba.core.caching" in sys.modules:
    guard(sys.modules["numba.core.caching"])
else:
    sys.meta_path.insert(0, _GuardOnImport())
