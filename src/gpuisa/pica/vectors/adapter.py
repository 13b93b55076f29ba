"""Running cases on any emulator through an adapter command (docs/adapter-protocol.md).

The driver writes a batch of cases as a suite directory (``cases.jsonl`` and
``cases.bin``), starts ``COMMAND MODE BATCH_DIR`` once for the batch and reads one
result line per case, in the cases' order, from its standard output.  Each line must come
within the per-case time limit: a case the adapter does not answer in time is recorded as
``timeout`` (the process is killed), a case during which the process dies is recorded as
``crash`` (with the signal or exit status), and the rest of the batch goes on in a new
process.  A hang or crash of the emulator under test is thus a result, never fatal.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ...errors import GpuIsaError
from ..engine.loading import DEFAULT_ROUNDING
from .model import Case
from .suite_io import write_suite

#: Statuses the driver records for a case the adapter did not answer.
CRASH, TIMEOUT = "crash", "timeout"
#: The longest result line an adapter may write (a whole case is about 14 KB).
MAX_LINE = 1 << 20


class AdapterError(GpuIsaError):
    """The adapter broke the protocol (a line that is not a result of the next case), or
    could not be started."""


def run_cases(command: Sequence[str], cases: Sequence[Case], mode: str, *,
              timeout: float = 10.0, batch: int = 256,
              progress: Callable[[int], None] | None = None,
              rounding: str = DEFAULT_ROUNDING) -> Iterator[dict[str, Any]]:
    """One result record per case, in order: the adapter's (the ``--check`` format) or the
    driver's ``{"id", "status": "crash" | "timeout", "detail"}``; ``rounding`` is the f24
    rounding the cases were made with (the batches' manifests record it)."""
    if not command:
        raise AdapterError("adapter: the command is empty (--adapter 'PROGRAM ARGS...')")
    for start in range(0, len(cases), max(1, batch)):
        for record in _batch(command, list(cases[start:start + batch]), mode, timeout,
                             rounding):
            if progress is not None:
                progress(1)
            yield record


def _batch(command: Sequence[str], pending: list[Case], mode: str, timeout: float,
           rounding: str) -> Iterator[dict[str, Any]]:
    from .catalog import SUITE_VERSION

    while pending:
        with tempfile.TemporaryDirectory(prefix="pica-adapter-") as work:
            directory = os.path.join(work, "batch")
            write_suite(directory, pending, SUITE_VERSION, rounding)
            answered, failure = yield from _one_process(command, pending, mode, directory,
                                                        timeout)
        if failure is not None:
            yield failure
            answered += 1
        pending = pending[answered:]


def _one_process(command: Sequence[str], cases: list[Case], mode: str, directory: str,
                 timeout: float) -> Iterator[dict[str, Any]]:
    """Yields the adapter's records; returns (how many it answered, the driver's record of
    the case it failed on, or None)."""
    stderr_path = os.path.join(directory, "stderr.txt")
    with open(stderr_path, "wb") as stderr:
        try:
            process = subprocess.Popen([*command, mode, directory], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=stderr,
                                       start_new_session=True, preexec_fn=_die_with_parent)
        except OSError as error:
            raise AdapterError(f"adapter: cannot start {command[0]!r}: {error.strerror}; "
                               "check --adapter") from None
    answered = 0
    try:
        for line in _lines(process, timeout):
            if line is None:
                return answered, _failed(cases[answered], TIMEOUT,
                                         f"no result within {timeout:g} s")
            record = _record(line, cases[answered], answered)
            answered += 1
            yield record
            if answered == len(cases):
                return answered, None
        code = process.wait()
        how = (f"killed by signal {-code} ({signal.Signals(-code).name})" if code < 0
               else f"exited with status {code}")
        return answered, _failed(cases[answered], CRASH,
                                 f"{how} after {answered} results{_last_line(stderr_path)}")
    finally:
        _stop(process)


def _lines(process: subprocess.Popen, timeout: float) -> Iterator[bytes | None]:
    """The adapter's output lines; None when the next one takes longer than ``timeout``."""
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    buffered = b""
    deadline = time.monotonic() + timeout
    with selector:
        while True:
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                deadline = time.monotonic() + timeout
                if line.strip():
                    yield line
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                yield None
                return
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return
            buffered += chunk
            if len(buffered) > MAX_LINE and b"\n" not in buffered:
                raise AdapterError(f"adapter: a result line is longer than {MAX_LINE} bytes")


def _record(line: bytes, case: Case, index: int) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not isinstance(record, dict) or record.get("id") != case.id:
        raise AdapterError(f"adapter: result {index + 1} must be a JSON object with \"id\": "
                           f"{json.dumps(case.id)} (results come one line per case, in the "
                           f"batch's order), got {line[:80]!r}")
    return record


def _failed(case: Case, status: str, detail: str) -> dict[str, Any]:
    return {"id": case.id, "status": status, "detail": detail}


def _last_line(path: str) -> str:
    with open(path, "rb") as handle:
        lines = handle.read()[-4096:].decode("utf-8", "replace").strip().splitlines()
    return f"; its last words: {lines[-1][:200]}" if lines else ""


#: Linux's prctl option that sends the child a signal when its parent thread ends.
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the adapter's process, before it starts (Linux): be killed when the driver
    ends, even by SIGKILL.  The adapter runs in its own session (so that a timeout can
    kill its helpers too), which no signal to the driver reaches: a hanging adapter
    would otherwise outlive a killed campaign and hold a core."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _stop(process: subprocess.Popen) -> None:
    """Kill the adapter's whole process group (an emulator may have started helpers)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    if process.stdout is not None:
        process.stdout.close()
