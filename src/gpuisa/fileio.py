"""Writing output files: never a half-written file, never a clobbered special file.

Every command that writes (``-o``, ``-h``) goes through :func:`write_output`, which picks
the one way of writing that suits what the path names:

* ``-``: standard output (binary data to ``sys.stdout.buffer``);
* a regular file, or nothing yet: a temporary file beside it, renamed into place, so a
  failure leaves the old file (or none) and never part of a new one;
* a symbolic link: the same, at the link's final target, so the link stays a link;
* a device, FIFO or socket (``/dev/null``, ``/dev/stdout``, ``mkfifo``): written through
  with a plain ``open``.  Renaming over such a path would replace the device node or the
  pipe with a regular file, which is what ``cp``, compilers and picasso never do.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from .errors import InputError

#: The path that means standard output, as with most Unix tools.
STDOUT = "-"


def write_output(path: str | os.PathLike[str], data: bytes | Iterable[bytes]) -> None:
    """Write ``data`` to ``path`` (``"-"`` for standard output); see the module docstring.

    ``data`` may be an iterable of byte chunks, so that large outputs are written as they
    are produced instead of being built in memory first.  If producing a chunk fails, a
    regular file is left as it was."""
    name = os.fspath(path)
    if name == STDOUT:
        _write_stdout(data)
        return
    target = Path(os.path.realpath(name))  # a symlink's final target; the link is kept
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise _cannot_write(name, error) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"cannot write {name}: it is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        _write_through(name, target, data)
        return
    _write_atomically(name, target, data, None if mode is None else stat.S_IMODE(mode))


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """:func:`write_output` of ``text`` encoded as UTF-8."""
    write_output(path, text.encode("utf-8"))


def _chunks(data: bytes | Iterable[bytes]) -> Iterable[bytes]:
    return (data,) if isinstance(data, bytes | bytearray | memoryview) else data


def _write_stdout(data: bytes | Iterable[bytes]) -> None:
    sys.stdout.flush()  # text printed earlier must come first
    stream = getattr(sys.stdout, "buffer", None)
    for chunk in _chunks(data):
        if stream is None:  # a text-only stand-in (tests capturing output)
            sys.stdout.write(bytes(chunk).decode("utf-8", errors="surrogateescape"))
        else:
            stream.write(chunk)
    sys.stdout.flush()


def _write_through(name: str, target: Path, data: bytes | Iterable[bytes]) -> None:
    try:
        with open(target, "wb") as stream:
            for chunk in _chunks(data):
                stream.write(chunk)
    except OSError as error:
        raise _cannot_write(name, error) from None


def _write_atomically(
    name: str, target: Path, data: bytes | Iterable[bytes], mode: int | None
) -> None:
    try:
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as error:
        if mode is not None and os.access(target, os.W_OK):
            # The directory refuses new files but the file itself may be written: do what
            # a plain open() would (atomicity needs a new file in the directory).
            _write_through(name, target, data)
            return
        raise _cannot_write(name, error) from None
    try:
        with os.fdopen(fd, "wb") as stream:
            for chunk in _chunks(data):
                stream.write(chunk)
        # mkstemp creates 0600: keep the replaced file's mode, or what open() would give.
        os.chmod(temp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(temp, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise _cannot_write(name, error) from None
        raise


def _cannot_write(name: str, error: OSError) -> InputError:
    return InputError(f"cannot write {name}: {error.strerror or error}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_directory(directory: str | os.PathLike[str], files: Mapping[str, bytes],
                    what: str) -> None:
    """Write ``files`` (name -> bytes) as the directory ``directory``, replaced as a whole:
    they go to a temporary directory beside it, renamed into place, so a failure never
    leaves half of them.  ``what`` names the contents in errors ("the suite")."""
    target = Path(directory)
    if target.exists() and not target.is_dir():
        raise InputError(f"cannot write {what} to {target}: it exists and is not a directory")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write {what} to {target}: {parent} is not a directory")
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
    except OSError as error:
        raise InputError(f"cannot write {what} to {target}: {error.strerror}") from None
    try:
        for name, data in files.items():
            (work / name).write_bytes(data)
        os.chmod(work, 0o755)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=parent))
            os.replace(target, old / "previous")
            os.replace(work, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(work, target)
    except OSError as error:
        shutil.rmtree(work, ignore_errors=True)
        raise InputError(f"cannot write {what} to {target}: {error.strerror}") from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
