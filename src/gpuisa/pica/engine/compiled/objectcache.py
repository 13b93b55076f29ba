"""The machine code of LLVM kernels kept on disk, so that a new process gets a shader's
kernel without building and compiling it again.

Files live in ``llvm/`` of the kernel cache folder (``$GPUISA_JIT_CACHE``, else
``gpuisa-jit`` in the user's cache folder).  A file's name is a hash of what its code
depends on: the kernel's key (program words, entry, precision, ...), the code
generator's level, and :func:`_fingerprint` (the sources that build kernels, llvmlite's
version, this CPU) — so a file is never used for anything else, and files of other
sources are simply never read again (the oldest are deleted beyond :data:`KEEP`).

Safety under concurrency and damage: a file is written whole under a temporary name and
renamed into place (another process reads the old file, the new one or none); it
starts with a hash of its contents, and one that does not match is deleted with a
:class:`DamagedCacheWarning` and the kernel compiled again.  A folder that cannot be
created or written (read-only, full, no home) only means kernels are compiled in every
process.  Pure Python.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import threading
import warnings
from importlib.metadata import version
from pathlib import Path

from ....errors import GpuIsaWarning

#: The first bytes of every file (the format's version is its last digit).
MAGIC = b"gpuisa-llvm-object-1\n"
_DIGEST = hashlib.sha256().digest_size
#: Files kept; beyond this the least recently written are deleted.
KEEP = 2000
_lock = threading.Lock()


class DamagedCacheWarning(GpuIsaWarning, RuntimeWarning):
    """A file of the compiled-code cache did not load; it was discarded and rebuilt."""


def folder() -> Path | None:
    """Where kernels' machine code is kept (None if the folder cannot be created or
    written: kernels are then compiled in every process)."""
    base = os.environ.get("GPUISA_JIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "gpuisa-jit")
    path = Path(base) / "llvm"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK | os.X_OK) else None


@functools.cache
def _fingerprint(machine: str) -> bytes:
    """A hash of what a kernel's machine code depends on besides its key: the modules
    that build kernels (every source file of the PICA200 engine, the ISA table, float
    rules), llvmlite's version and ``machine`` (the CPU and its features)."""
    pica = Path(__file__).resolve().parents[2]
    sources = sorted((pica / "engine").rglob("*.py")) + sorted((pica / "flow").rglob("*.py"))
    sources += [pica / "isa.py", pica.parent / "floats.py"]
    digest = hashlib.sha256(f"{version('llvmlite')}\n{machine}\n".encode())
    for path in sources:
        digest.update(path.read_bytes())
    return digest.digest()


def name(key: str, machine: str) -> str:
    """The file name of the code for ``key`` (a text naming everything the kernel was
    built from) on ``machine``."""
    return hashlib.sha256(_fingerprint(machine) + key.encode()).hexdigest()[:40] + ".o"


def read(file_name: str) -> bytes | None:
    """The machine code kept under ``file_name``, if there is a sound file (a damaged one
    is deleted, with a warning)."""
    where = folder()
    if where is None:
        return None
    path = where / file_name
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST
    payload = data[head:]
    if (len(data) > head and data.startswith(MAGIC)
            and hashlib.sha256(payload).digest() == data[len(MAGIC):head]):
        return payload
    discard(file_name, "its contents do not match their hash")
    return None


def holds(file_name: str) -> bool:
    """Whether a file ``file_name`` is kept (not whether it is sound: :func:`read`)."""
    where = folder()
    return where is not None and (where / file_name).is_file()


def write(file_name: str, payload: bytes) -> None:
    """Keep ``payload`` under ``file_name`` (nothing if it cannot be written)."""
    where = folder()
    if where is None:
        return
    temporary = where / f".{file_name}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(temporary, "wb") as file:
            file.write(MAGIC + hashlib.sha256(payload).digest() + payload)
        os.replace(temporary, where / file_name)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return
    _prune(where)


def discard(file_name: str, why: str) -> None:
    """Delete the damaged file ``file_name``, with a warning."""
    where = folder()
    if where is None:
        return
    path = where / file_name
    with contextlib.suppress(OSError):
        path.unlink()
    warnings.warn(f"{path}: damaged ({why}); discarded, compiled again",
                  DamagedCacheWarning, stacklevel=3)


def _prune(where: Path) -> None:
    """Delete the least recently written files beyond :data:`KEEP`."""
    with _lock:
        try:
            files = [entry for entry in os.scandir(where) if entry.name.endswith(".o")]
        except OSError:
            return
        if len(files) <= KEEP:
            return
        files.sort(key=_written)
        for entry in files[:len(files) - KEEP]:
            with contextlib.suppress(OSError):
                os.remove(entry.path)


def _written(entry: os.DirEntry) -> float:
    """When a file was written (0 if another process deleted it meanwhile)."""
    try:
        return entry.stat().st_mtime
    except OSError:
        return 0.0
