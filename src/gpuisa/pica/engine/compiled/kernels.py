"""Compiling the JIT engine's kernels and keeping them: the analysis of each program,
the text of a kernel turned into a Numba function through a file of the disk cache
(:func:`cache_directory`), and the stand-in arrays for registers a kernel does not use.
Shared by the vertex engine (:mod:`.runner`) and the geometry engine (:mod:`.geometry`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from ..decode import DecodedProgram
from .codegen import UFUNC_OPCODES, Analysis

_CACHE_SIZE = 64


class Memo:
    """A thread-safe map of the ``size`` most recently made values."""

    def __init__(self, size: int = _CACHE_SIZE):
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, key: object) -> object | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def make(self, key: object, make: Callable[[], object]) -> object:
        """The value for ``key``, made by ``make()`` (outside the lock) if missing."""
        value = self.get(key)
        if value is None:
            value = make()
            with self._lock:
                self._items[key] = value
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        return value


_analyses = Memo()
#: The decoded program asked about last and its analysis (replaced as one tuple).
_recent: tuple = (None, None)

#: Stand-ins for the registers a kernel does not touch (kernels take every register
#: file as a tuple of 16 arrays of one type: read-only for inputs).
UNUSED = np.zeros((0, 4), np.float32)
UNUSED_READ_ONLY = UNUSED.view()
UNUSED_READ_ONLY.flags.writeable = False
#: Stand-ins for the address registers and the flags when every lane starts with zeros /
#: false and nobody will look at their final values: kernels then neither load nor
#: store them (10^6 lanes of address registers are 24 MB read and written for nothing).
#: A kernel tells them from ShaderState's ``(3, lanes)`` / ``(2, lanes)`` arrays by their
#: first dimension; like those they are transposed C arrays (Numba's layout "F"), so that
#: a kernel compiles one signature for both (a zero-size array would be "C").
ZERO_ADDRESS = np.zeros((2, 4), np.int64).T
ZERO_FLAGS = np.zeros((2, 3), np.bool_).T


def analysis(program: DecodedProgram) -> Analysis:
    """The :func:`.codegen.analyse` facts of ``program`` (cached; a run asks several
    times for the same decoded program object, found by identity without hashing the
    program's words)."""
    global _recent
    recent = _recent  # one read: another thread may replace the pair meanwhile
    if recent[0] is program:
        return recent[1]
    from .codegen import analyse

    found = _analyses.make(program.program, lambda: analyse(program))
    _recent = (program, found)
    return found


_HEADER = ("# A gpuisa PICA200 JIT kernel (generated; the name carries the fingerprint of\n"
           "# the sources it depends on, cache.FINGERPRINT, and a hash of it and the text).\n"
           "import numpy as np\n\n"
           "from gpuisa.pica.engine.compiled import intrinsics as R\n"
           "from gpuisa.pica.engine.compiled import stacks as S\n\n\n")


def cache_directory() -> str | None:
    """Where generated kernels and Numba's compiled code for them are kept between
    processes: ``$GPUISA_JIT_CACHE``, else ``gpuisa-jit`` in the user's cache directory
    (None if it cannot be created; kernels are then compiled in every process).  The
    first time a process uses it, code made from other sources is deleted
    (:func:`_drop_stale`)."""
    path = os.environ.get("GPUISA_JIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "gpuisa-jit")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    if not os.access(path, os.W_OK):
        return None
    if path not in _checked:
        _checked.add(path)
        _drop_stale(path)
    return path


#: Cache directories this process has cleaned (:func:`_drop_stale`).
_checked: set[str] = set()
_MARKER = "fingerprint"


def _drop_stale(directory: str) -> None:
    """Delete the generated files, and Numba's compiled code for them, that another
    version of the sources made (their names carry another fingerprint: no run of this
    version would use them, and without this the directory grew with every upgrade).
    Lists the directory only when its marker names another fingerprint."""
    from .cache import FINGERPRINT, is_current, mark_current

    marker = os.path.join(directory, _MARKER)
    if is_current(marker):
        return
    keep = f"_{FINGERPRINT[:8]}_"
    for folder in (directory, numba_cache_folder(directory)):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith("pica_") and keep not in name:
                # another process may have removed it first
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(folder, name))
    mark_current(marker)


def generated_name(kind: str, text: str) -> str:
    """The file name of generated source ``text`` of ``kind`` ("kernel", "alu") in the
    cache directory: the fingerprint of the sources its compiled code depends on (what
    :func:`_drop_stale` keeps), then a hash of the fingerprint and the text."""
    from .cache import FINGERPRINT

    digest = hashlib.sha256((FINGERPRINT + text).encode()).hexdigest()[:24]
    return f"pica_{kind}_{FINGERPRINT[:8]}_{digest}.py"


def source_path(source: str) -> str | None:
    directory = cache_directory()
    if directory is None:
        return None
    return os.path.join(directory, generated_name("kernel", _HEADER + source))


def import_generated(path: str, text: str):
    """The module of generated source ``text``, written to ``path`` (a file of the cache
    directory, replaced atomically: other processes may read it meanwhile) and imported
    from there under its file name, so that Numba caches what it compiles from it on
    disk.  A file already there is used only if it holds ``text`` (its name is a hash of
    it): anything else is damage, replaced with a warning.  Raises OSError when the file
    cannot be written."""
    name = os.path.splitext(os.path.basename(path))[0]
    if name not in sys.modules:
        found = _read_text(path, len(text))
        if found != text:
            if found is not None:
                from .cache import warn_damaged

                warn_damaged(path, ValueError("not the text its name stands for"))
            temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            try:
                with open(temporary, "w", encoding="utf-8") as file:
                    file.write(text)
                os.replace(temporary, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.remove(temporary)
                raise
    module = sys.modules.get(name)
    if module is None:
        # In sys.modules: Numba imports the module by name when it loads the compiled
        # code from its cache.  Run from ``text`` (what the file holds), not through the
        # import system, which would write and then trust a bytecode file of its own.
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        exec(compile(text, path, "exec"), module.__dict__)
        sys.modules[name] = module
    return module


def _read_text(path: str, length: int) -> str | None:
    """The text of ``path`` if it is UTF-8 of at most ``length`` + 1 characters (enough
    to tell it from a text of ``length``), "" for anything else there, None if there is
    no such file."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read(length + 1)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""


def compile_source(source: str) -> Callable[..., None]:
    """The Numba kernel of ``source``, imported through :func:`import_generated` (kernels
    refer to no address of this process: EX2/LG2's loops are an argument)."""
    from numba import njit

    from . import intrinsics, stacks

    path = source_path(source)
    if path is not None:
        try:
            module = import_generated(path, _HEADER + source)
            return njit(nogil=True, error_model="numpy", cache=True)(module.kernel)
        except OSError:
            pass
    namespace = {"np": np, "R": intrinsics, "S": stacks}
    exec(compile(source, "<gpuisa pica jit kernel>", "exec"), namespace)
    return njit(nogil=True, error_model="numpy", cache=False)(namespace["kernel"])


def numba_cache_folder(directory: str) -> str:
    """Where Numba keeps the compiled code of a module in ``directory``: under
    ``$NUMBA_CACHE_DIR`` if that is set, in a folder named by the directory's name and
    the SHA-1 of its absolute path (numba.core.caching: UserProvidedCacheLocator,
    _CacheLocator.get_suitable_cache_subpath), else in its ``__pycache__``
    (InTreeCacheLocator; the cache directory is writable)."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        folder = os.path.abspath(directory)
        digest = hashlib.sha1(folder.encode()).hexdigest()
        return os.path.join(root, f"{os.path.basename(folder)}_{digest}")
    return os.path.join(directory, "__pycache__")


def on_disk(source: str) -> bool:
    """Whether Numba's cache holds compiled code for the kernel of ``source``: its index
    file, named as Numba names it (module, function, the line of its ``def``, Python
    version and ABI flags) so that no directory is listed (the cache directory grows
    large)."""
    path = source_path(source)
    if path is None:
        return False
    directory, name = os.path.split(path)
    text = _HEADER + source
    line = text.count("\n", 0, text.index("def kernel(")) + 1
    index = (f"{name[:-3]}.kernel-{line}.py{sys.version_info[0]}{sys.version_info[1]}"
             f"{getattr(sys, 'abiflags', '')}.nbi")
    return os.path.exists(os.path.join(numba_cache_folder(directory), index))


#: The arithmetic Numba's kernels (per-program, interpreter and geometry kernels) compute:
#: runs in f24's truncating rounding (pica-emulation.md#f24-truncation) go to the
#: reference engine.
NUMBA_PRECISIONS = frozenset({"f24", "f32"})


def needs_reference(program: DecodedProgram) -> bool:
    """Whether the JIT hands the whole program to the reference engine (EX2/LG2 when
    NumPy's inner loops cannot be called directly).  Imports Numba (intrinsics) only for
    programs using them: engine="auto" asks before it knows whether Numba is needed."""
    if not analysis(program).opcodes & UFUNC_OPCODES:
        return False
    from . import intrinsics

    return not intrinsics.UFUNC_LOOPS_OK
