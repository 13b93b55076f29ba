"""Writing output files so that a failure never leaves a half-written file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .errors import InputError


def write_bytes_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    target = Path(path)
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    except OSError as error:
        raise InputError(f"cannot write {os.fspath(path)}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp creates 0600; match a plain open()
        os.replace(temp, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise InputError(f"cannot write {os.fspath(path)}: {error.strerror or error}") from None
        raise


def write_text_atomically(path: str | os.PathLike[str], text: str) -> None:
    write_bytes_atomically(path, text.encode("utf-8"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
