"""The picasso-compatible PICA200 assembler.

>>> from gpuisa.pica.asm import assemble
>>> shbin = assemble([("shader.v.pica", text)])
>>> data = shbin.to_bytes()

The language is picasso's (pica-assembly.md) plus gpuisa's extensions
(``docs/assembly-extensions.md``); for every source picasso 2.7.1 accepts, the SHBIN is
byte-identical to picasso's.  All errors of a run are reported together in one
:class:`gpuisa.errors.SourceError`, each as ``file:line:col: error: message`` with the
source line and a caret.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import Diagnostic, InputError, SourceError, SourceLocation
from ..shbin import Shbin
from .assembler import Assembler, Options

__all__ = ["AssemblyResult", "assemble", "assemble_with_warnings"]

#: The name used for a source given as a bare string.
DEFAULT_NAME = "<source>"


@dataclass(frozen=True, slots=True)
class AssemblyResult:
    """A successful assembly: the SHBIN, picasso's ``-h`` header text, the warnings (with
    their notes) and, for every code word, the source location of the statement that
    produced it."""

    shbin: Shbin
    header: str
    warnings: tuple[Diagnostic, ...]
    word_locations: tuple[SourceLocation, ...]


def source_list(sources: str | Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``sources`` as (file name, text) pairs in assembly order: one text is one file
    named ``<source>``; anything else is an :class:`InputError`."""
    if isinstance(sources, str):
        return [(DEFAULT_NAME, sources)]
    if isinstance(sources, bytes | bytearray) or not isinstance(sources, Sequence):
        raise InputError("sources must be a string or a list of (name, text) pairs, not "
                         f"{type(sources).__name__}")
    out = []
    for i, item in enumerate(sources):
        if (not isinstance(item, tuple | list) or len(item) != 2
                or not all(isinstance(x, str) for x in item)):
            raise InputError(f"sources[{i}] must be a (name, text) pair of strings")
        out.append((item[0], item[1]))
    if not out:
        raise InputError("no input files are specified")
    return out


def assemble_with_warnings(sources: str | Sequence[tuple[str, str]], *, pad_nops: bool = True,
                           strict: bool = False, werror: bool = False) -> AssemblyResult:
    """Assemble one SHBIN from ``sources`` (one DVLE per source, as picasso does).

    ``pad_nops=False`` is picasso's ``-n``; ``strict`` reproduces picasso's defects
    (``--picasso-strict``); ``werror`` makes warnings errors.  Raises
    :class:`SourceError` with every error (and the warnings before it) on failure.
    """
    asm = Assembler(Options(pad_nops=pad_nops, strict=strict, werror=werror))
    output = asm.run(source_list(sources))
    if output is None:
        raise SourceError(asm.diagnostics)
    locations = tuple(SourceLocation(t.line.file, t.line.number, t.col + 1)
                      for t in output.word_toks)
    return AssemblyResult(output.shbin, output.header, tuple(asm.diagnostics), locations)


def assemble(sources: str | Sequence[tuple[str, str]], *, pad_nops: bool = True,
             strict: bool = False, werror: bool = False) -> Shbin:
    """Like :func:`assemble_with_warnings`, returning only the SHBIN."""
    return assemble_with_warnings(sources, pad_nops=pad_nops, strict=strict,
                                  werror=werror).shbin
