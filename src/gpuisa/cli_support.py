"""What the ``pica`` and ``a2xx`` command lines share: dispatching a subcommand and
turning every :class:`GpuIsaError` into ``PROG: error: …`` with exit status 1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .errors import Diagnostic, GpuIsaError, SourceError


def dispatch(
    prog: str,
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    render: Callable[[Diagnostic], str] = Diagnostic.render,
) -> int:
    """Parse ``argv`` and run the chosen subcommand's ``handler``; never a traceback for
    bad input.  ``render`` formats each diagnostic of a :class:`SourceError`."""
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except SourceError as exc:
        for diagnostic in exc.diagnostics:
            print(render(diagnostic), file=sys.stderr)
        return 1
    except GpuIsaError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"{prog}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
