"""Reading the data files both command lines take (``.npy``, ``.npz``, ``.json``).

Every reader is bounded: a file larger than :data:`MAX_INPUT_BYTES` is refused before it
is read whole, an array's header must describe no more data than the file holds (so a
header claiming 10^11 rows is an error, not an allocation), JSON nesting and integer
lengths are limited, and every malformed file is an :class:`InputError` naming the file
and what is wrong with it.  The path ``-`` is standard input (:data:`STDIN`), read once
per command; a data file's type comes from its suffix or, read from standard input,
from its first bytes (:func:`file_type`).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import stat
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from .errors import InputError

T = TypeVar("T")

#: The largest input file read (inputs for 10^7 vertices of 8 attributes in float64 fit).
MAX_INPUT_BYTES = 4 << 30
#: The largest shader source or binary read (the biggest real shader sources are ~100 KB).
MAX_SHADER_BYTES = 64 << 20
_PIECE = 1 << 20
#: What reading a damaged zip archive raises (``zipfile`` and ``zlib`` use all of these).
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, struct.error, OSError, ValueError, EOFError,
               NotImplementedError)
#: JSON inputs are at most a few levels deep (object -> register -> rows -> components).
MAX_JSON_DEPTH = 16
#: Longest integer literal accepted in JSON (a 64-bit pattern has 20 digits).
MAX_JSON_INT_DIGITS = 40
#: Non-finite numbers in JSON inputs and outputs are written as these strings.
SPECIAL_NUMBERS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


#: The path that means standard input, as with most Unix tools.
STDIN = "-"
#: What standard input held, once read (:func:`forget_stdin` starts over).
_stdin: bytes | None = None


def read_input(path: str | os.PathLike[str], *, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path`` (``-``: standard input, read once and kept, so that asking
    twice gives the same bytes); refuses files over ``limit`` bytes without reading them
    whole (``/dev/zero`` included)."""
    global _stdin
    name = os.fspath(path)
    too_large = InputError(f"{name}: larger than {_size(limit)}; refusing to read it")
    if name == STDIN:
        if _stdin is None:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                raise InputError(f"{name}: standard input is not open for reading")
            try:
                _stdin = _read_all(stream, limit, too_large)
            except OSError as error:
                raise InputError(f"{name}: cannot read: {error.strerror or error}") from None
        if len(_stdin) > limit:
            raise too_large
        return _stdin
    try:
        with open(name, "rb") as stream:
            if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                if os.fstat(stream.fileno()).st_size > limit:
                    raise too_large
                return stream.read()
            return _read_all(stream, limit, too_large)
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror or error}") from None


def _read_all(stream: Any, limit: int, too_large: InputError) -> bytes:
    """A pipe or device: its size is known only by reading, a piece at a time."""
    pieces: list[bytes] = []
    total = 0
    while piece := stream.read(min(_PIECE, limit + 1 - total)):
        pieces.append(piece)
        total += len(piece)
        if total > limit:
            raise too_large
    return b"".join(pieces)


def forget_stdin() -> None:
    """Let the next :func:`read_input` of ``-`` read standard input again (each command of
    a command line starts so)."""
    global _stdin
    _stdin = None


def file_type(path: str) -> str:
    """A data file's type as a suffix (".npy", ".npz", ".json", ".csv", ...): the path's
    own, or, for standard input, the one its first bytes say (an array's magic, a zip
    archive's, a JSON object or list; anything else is read as CSV)."""
    if path != STDIN:
        return os.path.splitext(path)[1].lower()
    head = read_input(path)[:8]
    if head.startswith(b"\x93NUMPY"):
        return ".npy"
    if head.startswith(b"PK\x03\x04"):
        return ".npz"
    return ".json" if head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] in (b"{", b"[") else ".csv"


def load_json(path: str) -> Any:
    """A JSON file's value, with nesting and integer sizes bounded."""
    return parse_json(read_input(path), path)


def parse_json(data: bytes, where: str) -> Any:
    """The value of JSON text ``data`` (UTF-8), with nesting and integer sizes bounded;
    problems are :class:`InputError` s starting with ``where``."""
    try:
        text = data.decode("utf-8-sig")  # a BOM some editors write is not an error
        value = json.loads(text, parse_int=_json_int)
    except UnicodeDecodeError as error:
        raise InputError(f"{where}: not UTF-8 text ({error.reason} at byte {error.start})")\
            from None
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: invalid JSON ({error})") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} levels deep")\
            from None
    except _LongInteger as error:
        raise InputError(f"{where}: {error}") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise InputError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
    return value


def read_lines(path: str | os.PathLike[str], *, limit: int) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, line without its end) of each line of ``path``, read as they
    are needed; a line of more than ``limit`` bytes is an :class:`InputError` (so is a
    file that cannot be read), found before more than ``limit`` bytes are held."""
    name = os.fspath(path)
    try:
        with (contextlib.nullcontext(sys.stdin.buffer) if name == STDIN
              else open(name, "rb")) as stream:
            number = 0
            while line := stream.readline(limit + 2):  # room for "\r\n"
                number += 1
                line = line.rstrip(b"\r\n")
                if len(line) > limit:
                    raise InputError(f"{name}:{number}: a line longer than {_size(limit)}; "
                                     f"refusing to read it")
                yield number, line
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror or error}") from None


def read_records(path: str, *, limit: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of each non-empty line of a JSON Lines file whose objects
    each carry a string ``"id"``, read a line at a time (none longer than ``limit``)."""
    for number, line in read_lines(path, limit=limit):
        if not line.strip():
            continue
        record = parse_json(line, f"{path}:{number}")
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise InputError(f"{path}:{number}: each line must be an object with an 'id'")
        yield number, record


def read_json_lines(path: str, parse: Callable[[Any, str], T], *, limit: int) -> Iterator[T]:
    """``parse(value, "PATH:LINE")`` of each non-empty line of a JSON Lines file, in order
    (none longer than ``limit``)."""
    for number, line in read_lines(path, limit=limit):
        if line.strip():
            where = f"{path}:{number}"
            yield parse(parse_json(line, where), where)


def shown(value: object, limit: int = 60) -> str:
    """``value`` as JSON text for a message, shortened when long."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def json_numbers(value: object, where: str, *, numbers_only: bool = False) -> object:
    """``value`` (nested lists) with the strings of :data:`SPECIAL_NUMBERS` turned into
    floats; any other string is an error, and so is any other non-number (a boolean
    included) when ``numbers_only``."""
    if isinstance(value, list):
        return [json_numbers(v, where, numbers_only=numbers_only) for v in value]
    if isinstance(value, str):
        if value.lower() in SPECIAL_NUMBERS:
            return SPECIAL_NUMBERS[value.lower()]
        raise InputError(f"{where}: {value!r} is not a number")
    if numbers_only and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InputError(f"{where}: {value!r} is not a number")
    return value


def bit_patterns(values: object, where: str, count: int, limit: int, kind: str
                 ) -> tuple[int, ...]:
    """A JSON list of ``count`` bit patterns (``"0x..."`` strings or integers) of at most
    ``limit``; anything else is an :class:`InputError` naming ``where`` and ``kind``."""
    if not isinstance(values, list) or len(values) != count:
        words = ("one", "two", "three", "four")[count - 1] if 1 <= count <= 4 else count
        raise InputError(f"{where}: expected {words} bit patterns, got {shown(values)}")
    out = []
    for v in values:
        try:
            n = int(v, 16) if isinstance(v, str) else v
        except ValueError:
            n = None
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= limit:
            raise InputError(f"{where}: {shown(v)} is not a {kind} bit pattern")
        out.append(n)
    return tuple(out)


def load_npy(path: str) -> np.ndarray:
    """The single array of an ``.npy`` file."""
    data = read_input(path)
    if data[:4] == b"PK\x03\x04":
        raise InputError(f"{path}: expected a single array (.npy), found an .npz archive")
    return _array(io.BytesIO(data), len(data), path)


def load_npz(path: str) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` archive, by name (without the ``.npy`` suffix)."""
    data = read_input(path)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _ZIP_ERRORS as error:
        reason = "empty file" if not data else error
        raise InputError(f"{path}: not a readable .npz file ({reason})") from None
    arrays: dict[str, np.ndarray] = {}
    total = 0
    with archive:
        for info in archive.infolist():
            where = f"{path}: {info.filename}"
            total += info.file_size
            if total > MAX_INPUT_BYTES:
                raise InputError(f"{path}: its arrays hold more than "
                                 f"{_size(MAX_INPUT_BYTES)}; refusing to read them")
            name = info.filename.removesuffix(".npy")
            try:
                with archive.open(info) as member:
                    arrays[name] = _array(member, info.file_size, where)
            except _ZIP_ERRORS as error:
                raise InputError(f"{where}: not a readable array ({error})") from None
    return arrays


def _array(stream: Any, size: int, where: str) -> np.ndarray:
    """Read one ``.npy`` image from ``stream`` (``size`` bytes), checking that its header
    describes no more data than there is before anything is allocated."""
    fmt = np.lib.format
    if size == 0:
        raise InputError(f"{where}: not a readable .npy array (empty file)")
    try:
        version = fmt.read_magic(stream)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(stream)
        elif version in ((2, 0), (3, 0)):
            shape, _, dtype = fmt.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
    except Exception as error:
        # literal text: tokenizer, syntax, value and type errors all mean "malformed".
        raise InputError(f"{where}: not a readable .npy array (bad header: {error})") from None
    try:
        if dtype.hasobject:
            raise ValueError("arrays of Python objects are not read")
        count = math.prod(shape)
        if count * dtype.itemsize > size:
            raise ValueError(f"its header describes {_size(count * dtype.itemsize)} of data "
                             f"for shape {shape}, more than the file holds")
        stream.seek(0)
        array = fmt.read_array(stream, allow_pickle=False)
    except (ValueError, OSError, EOFError, TypeError) as error:
        raise InputError(f"{where}: not a readable .npy array ({error})") from None
    return array


class _LongInteger(ValueError):
    pass


def _json_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_JSON_INT_DIGITS:
        raise _LongInteger(f"an integer of {digits} digits (at most {MAX_JSON_INT_DIGITS})")
    return int(text)


def _depth(value: Any) -> int:
    """Nesting depth of lists and objects, without recursion."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, list | dict):
            deepest = max(deepest, depth)
            if depth > MAX_JSON_DEPTH:
                return depth
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.4g} {unit}"
    return f"{count} bytes"
