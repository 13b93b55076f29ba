"""What the ``pica`` and ``a2xx`` command lines share: dispatching a subcommand,
turning every :class:`GpuIsaError` into ``PROG: error: …`` with exit status 1,
reading numeric options with their ranges checked (:func:`integer`, :func:`number`),
the picture options of the renderers (:func:`picture_size`, :func:`rgba_colour`) and
counting progress on a terminal (:class:`Progress`)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import signal
import sys
import warnings
from collections.abc import Callable, Sequence

from .datafiles import forget_stdin
from .errors import Diagnostic, GpuIsaError, GpuIsaWarning, InputError, SourceError
from .numtext import is_digits, saturating_int


def dispatch(
    prog: str,
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    render: Callable[[Diagnostic], str] = Diagnostic.render,
) -> int:
    """Parse ``argv`` and run the chosen subcommand's ``handler``; never a traceback for
    bad input.  ``render`` formats each diagnostic of a :class:`SourceError`."""
    forget_stdin()  # "-" reads standard input afresh for this command
    try:
        args = parser.parse_args(argv)  # option values out of range: InputError
        with warnings.catch_warnings():
            warnings.showwarning = functools.partial(_show_warning, prog)
            # gpuisa's own warnings are messages to the user of the command: printed
            # whatever the interpreter's filters say (a -W error run included)
            warnings.filterwarnings("default", category=GpuIsaWarning)
            return int(args.handler(args))
    except SourceError as exc:
        for diagnostic in exc.diagnostics:
            print(render(diagnostic), file=sys.stderr)
        return 1
    except GpuIsaError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # Whoever read standard output has stopped (``| head``): stop as quietly as a
        # program killed by SIGPIPE, which is what the shell expects.
        _drop_stdout()
        return 128 + signal.SIGPIPE
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prog}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _show_warning(prog: str, message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: object = None, line: str | None = None) -> None:
    """gpuisa's own warnings (a :class:`GpuIsaWarning`) as ``PROG: warning: message``;
    those of libraries as Python shows them."""
    if issubclass(category, GpuIsaWarning):
        print(f"{prog}: warning: {message}", file=sys.stderr)
    else:
        _default_show_warning(message, category, filename, lineno, file, line)


_default_show_warning = warnings.showwarning


def _drop_stdout() -> None:
    """Point standard output at the null device: Python flushes it once more at exit,
    which would report the closed pipe again ("Exception ignored ...")."""
    if sys.stdout is not sys.__stdout__ or sys.stdout is None:
        return  # replaced (a test capturing output): nothing of the process's to close
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


#: Integers read from options saturate here (far beyond any option's range).
_CEILING = 1 << 64


def integer(option: str, minimum: int | None = None,
            maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` reading a decimal integer of ``minimum`` .. ``maximum`` (None:
    unbounded; digits of any length read in bounded time); anything else is an
    :class:`InputError` naming ``option``."""
    wanted = f"an integer{_bounds(minimum, maximum)}"

    def parse(text: str) -> int:
        body = text.strip()
        digits = body[1:] if body[:1] in "+-" else body
        if not is_digits(digits, 10):
            raise InputError(f"{option}: expected {wanted}, got {_shown(text)}")
        value = saturating_int(digits, 10, _CEILING) * (-1 if body[:1] == "-" else 1)
        if (minimum is not None and value < minimum) or (
                maximum is not None and value > maximum):
            raise InputError(f"{option}: expected {wanted}, got {_shown(text)}")
        return value

    return parse


def number(option: str, *, above: float | None = None, below: float | None = None
           ) -> Callable[[str], float]:
    """An argparse ``type`` reading a finite number greater than ``above`` and less than
    ``below`` (None: unbounded); anything else (``nan``, ``inf`` included) is an
    :class:`InputError` naming ``option``."""
    limits = [f"greater than {above:g}" if above is not None else "",
              f"less than {below:g}" if below is not None else ""]
    wanted = " ".join(["a finite number", " and ".join(t for t in limits if t)]).strip()

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or (above is not None and not value > above) or (
                below is not None and not value < below):
            raise InputError(f"{option}: expected {wanted}, got {_shown(text)}")
        return value

    return parse


def picture_size(option: str, max_side: int) -> Callable[[str], tuple[int, int]]:
    """An argparse ``type`` reading ``WIDTHxHEIGHT``, each side 1..``max_side``."""
    side = integer(option, 1, max_side)

    def parse(text: str) -> tuple[int, int]:
        parts = text.lower().split("x")
        if len(parts) != 2 or not all(parts):
            raise InputError(f"{option}: expected WIDTHxHEIGHT, got {_shown(text)}")
        return side(parts[0]), side(parts[1])

    return parse


def rgba_colour(text: str) -> tuple[int, int, int, int]:
    """An argparse ``type`` reading ``RRGGBB`` or ``RRGGBBAA`` (``#`` allowed; opaque
    without alpha)."""
    digits = text.removeprefix("#")
    if len(digits) not in (6, 8) or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise argparse.ArgumentTypeError(f"expected RRGGBB or RRGGBBAA, got {text!r}")
    values = [int(digits[i:i + 2], 16) for i in range(0, len(digits), 2)]
    return tuple(values + [255] * (4 - len(values)))  # type: ignore[return-value]


def key_values(pairs: Sequence[str], option: str, example: str) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` options as a mapping (values in lower case); ``example``
    shows the form in the error."""
    out = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key or not value:
            raise InputError(f"{option} {pair!r}: expected {example}")
        out[key.strip()] = value.strip().lower()
    return out


def _bounds(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f" from {minimum} to {maximum}"
    if minimum is not None:
        return f" of {minimum} or more"
    return f" of {maximum} or less" if maximum is not None else ""


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted, shortened when long (a number of 10^5 digits is not echoed)."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


class Progress:
    """Counts cases on stderr when it is a terminal (``WHAT: N cases``, rewritten in
    place); silent otherwise, so piped output stays clean."""

    def __init__(self, what: str):
        self.what = what
        self.done = 0
        self.active = sys.stderr.isatty()

    def __call__(self, count: int) -> None:
        self.done += count
        if self.active:
            print(f"\r{self.what}: {self.done} cases", end="", file=sys.stderr, flush=True)

    def finish(self) -> None:
        if self.active:
            print(file=sys.stderr)
