"""Which files form the program a document belongs to, and a cache of analyses.

``pica asm`` assembles the files named on its command line, in order, into one SHBIN;
procedures are shared between them (pica-assembly.md#linking).  The editor cannot
know that command line, so a project file says it: ``.picaproject`` in the document's
directory or any directory above it.  Each non-blank line that is not a ``#`` comment
lists the files of one program, separated by spaces and relative to the project file,
exactly as they would follow ``pica asm -o OUT.shbin``::

    # .picaproject
    source/vshader.v.pica source/gshader.g.pica
    source/other.v.pica

A document listed on a line is analysed together with the other files of that line (the
first line naming it wins); any other document is analysed alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...datafiles import MAX_SHADER_BYTES, read_input
from ...errors import GpuIsaError, InputError
from .analysis import Analysis, analyse

PROJECT_FILE = ".picaproject"
#: A project file larger than this is not a list of file names.
MAX_PROJECT_BYTES = 1 << 20


def read_source(path: str) -> str:
    """A source file as ``pica asm`` reads it (bounded; undecodable bytes kept)."""
    return read_input(path, limit=MAX_SHADER_BYTES).decode("utf-8", errors="surrogateescape")


def find_project_file(path: str) -> str | None:
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        candidate = os.path.join(directory, PROJECT_FILE)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def parse_project(path: str) -> list[list[str]]:
    """The programs of a project file, each a list of absolute paths in order."""
    data = read_input(path, limit=MAX_PROJECT_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") \
            from None
    base = os.path.dirname(os.path.abspath(path))
    programs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            programs.append([os.path.normpath(os.path.join(base, name)) for name in line.split()])
    return programs


def program_files(path: str) -> list[str]:
    """The files analysed together with ``path`` (which is among them)."""
    project = find_project_file(path)
    if project is None:
        return [path]
    absolute = os.path.normpath(os.path.abspath(path))
    for program in parse_project(project):
        if absolute in program:
            return program
    return [path]


@dataclass(frozen=True, slots=True)
class ProjectError:
    """A program that could not be put together: shown on the document asked about."""

    path: str
    message: str


class Workspace:
    """Analyses programs, reading documents through ``read`` (the editor's open buffers
    first, then the disk), and keeps the last analysis of each program."""

    def __init__(self, read: Callable[[str], str] = read_source):
        self._read = read
        self._cache: dict[tuple[str, ...], Analysis] = {}

    def program(self, path: str) -> tuple[list[tuple[str, str]], ProjectError | None]:
        try:
            files = program_files(path)
        except GpuIsaError as error:
            return [(path, self._read(path))], ProjectError(path, f"project file: {error}")
        sources = []
        for name in files:
            try:
                sources.append((name, self._read(name)))
            except GpuIsaError as error:
                return [(path, self._read(path))], ProjectError(path, str(error))
        return sources, None

    def analyse(self, sources: Sequence[tuple[str, str]]) -> Analysis:
        key = tuple(path for path, _ in sources)
        cached = self._cache.get(key)
        if cached is not None and cached.sources == tuple(sources):
            return cached
        result = analyse(sources, cached)
        self._cache[key] = result
        return result

    def analysis_of(self, path: str) -> tuple[Analysis, ProjectError | None]:
        sources, error = self.program(path)
        return self.analyse(sources), error

    def forget(self) -> None:
        self._cache.clear()
