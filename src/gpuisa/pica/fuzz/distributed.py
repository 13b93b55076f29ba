"""A ``pica fuzz`` campaign on a Dask distributed cluster (``--workers N`` for a local
cluster, ``--scheduler ADDRESS`` for a running one).

The campaign is cut into shards by program number (program ``n`` of seed ``s`` depends on
(s, n) alone, :func:`.programs.program_seed`): each shard is one batch, run and compared
on a worker (:func:`.campaign.scan`).  The client then selects the divergences to shrink
in program order, as a one-machine campaign does (:func:`.campaign.select`), the workers
shrink and name them (:func:`.campaign.examine`), and the client files them in program
order (:func:`.campaign.file_finding`): the findings are exactly those of
:func:`.campaign.run_campaign` with the same settings.  Dask schedules the tasks; the
adapter command must run on every worker."""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ...errors import InputError
from .campaign import Settings, State, examine, file_finding, save, scan, select
from .shrink import Runner

#: What to install for this module's Dask (the extra of pyproject.toml).
INSTALL = 'pip install "gpuisa[dist]"'


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError(f"fuzz: --workers and --scheduler run the campaign on Dask "
                         f"distributed, which is not installed: {INSTALL}") from None


@contextmanager
def cluster(workers: int | None = None, scheduler: str | None = None,
            processes: bool = True) -> Iterator[Any]:
    """A Dask client: of the scheduler at ``scheduler``, else of a local cluster of
    ``workers`` workers (one thread each; ``processes=False``: threads of this process,
    which only suits adapters that are commands)."""
    distributed = _distributed()
    if scheduler:
        try:
            client = distributed.Client(scheduler, timeout=10)
        except OSError as error:
            raise InputError(f"fuzz: --scheduler {scheduler}: cannot reach the Dask "
                             f"scheduler ({error})") from None
        with client:
            yield client
        return
    with distributed.LocalCluster(n_workers=workers or 2, threads_per_worker=1,
                                  processes=processes, dashboard_address=None,
                                  silence_logs=logging.CRITICAL) as local, \
            distributed.Client(local) as client:
        yield client


def run_distributed(settings: Settings, directory: str, client: Any,
                    progress: Callable[[State], None] | None = None) -> State:
    """Run the campaign ``settings`` on the cluster of ``client``, writing into
    ``directory`` what :func:`.campaign.run_campaign` writes."""
    os.makedirs(os.path.join(directory, "cases"), exist_ok=True)
    starts = range(0, settings.programs, settings.batch)
    futures = client.map(scan, [settings] * len(starts), list(starts),
                         [min(s + settings.batch, settings.programs) for s in starts],
                         pure=False)
    state = State()
    chosen = []
    for future in futures:  # in program order, whichever shard finishes first
        chosen += select(state, settings, future.result())
        if progress is not None:
            progress(state)
    runner = Runner(settings.command, settings.mode, settings.timeout, settings.batch)
    examined = client.gather(client.map(examine, [c for c, _ in chosen], [f for _, f in chosen],
                                        [runner] * len(chosen), [settings] * len(chosen),
                                        pure=False))
    for one in examined:
        file_finding(state, directory, one)
    save(directory, settings, state)
    return state
