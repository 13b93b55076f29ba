"""gpuisa against another emulator's shader engine measured in the same window.

A harness of the other engine (e.g. Azahar's x64 shader JIT driven the way its vertex
loader drives it, over the shaders of :mod:`benchmarks.shaders` with the same inputs)
writes one line per measurement::

    azahar-jit skinning N=100000 21.4 compile 1.2

(the engine's name, the workload, the number of vertices, millions of vertices per
second, optionally ``compile`` and the milliseconds compiling the shader took; more
fields may follow; ``#`` starts a comment).  ``python -m benchmarks.run --peer FILE``
prints, for every line of the file, gpuisa's default engine on the same workload and N
in both precisions and the ratio, against the goals of :data:`GOALS`;
``python -m benchmarks.bench_compile --peer FILE`` compares a first ``run()`` of a new
shader on 10^6 vertices with the peer's compile and run of the same batch
(:data:`FIRST_CALL_GOAL`).
Run both in one window: the machine is shared, and figures of different runs are not
comparable.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

#: The ratio gpuisa's default engine is to reach over the peer, by precision: f24 is
#: bit-exact float24, which the peers do not compute; f32 is the peers' own arithmetic.
GOALS = {"f24": 2.0, "f32": 3.0}
#: A first ``run()`` of a new shader in a warm process may take at most this many times
#: the peer's compile and run of the same batch.
FIRST_CALL_GOAL = 4.0


@dataclass(frozen=True, slots=True)
class PeerRate:
    engine: str
    workload: str
    n: int
    rate: float  # vertices per second
    compile: float | None = None  # seconds

    @property
    def first_call(self) -> float | None:
        """Seconds to compile the shader and run the batch, if the compile was given."""
        return None if self.compile is None else self.compile + self.n / self.rate


def read(path: Path) -> list[PeerRate]:
    """The measurements of a peer results file (ValueError naming the line if one is
    not ``NAME WORKLOAD N=<n> <M/s> [compile <ms>]``)."""
    rates = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        try:
            engine, workload, size, mega = fields[:4]
            if not size.startswith("N="):
                raise ValueError(size)
            rest = fields[4:]
            compile_ms = float(rest[rest.index("compile") + 1]) if "compile" in rest else None
            rates.append(PeerRate(engine, workload, int(size[2:]), float(mega) * 1e6,
                                  None if compile_ms is None else compile_ms / 1e3))
        except (ValueError, IndexError):
            raise ValueError(f"{path}:{number}: expected 'ENGINE WORKLOAD N=<n> <M/s>', "
                             f"got {line!r}") from None
    return rates


def add_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--peer FILE``: another engine's figures measured in this window, and ``what``
    the command does with them."""
    parser.add_argument("--peer", type=Path, default=None, metavar="FILE",
                        help="another engine's figures measured in this window "
                             f"(benchmarks/peers.py says the format): {what}")


def from_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace
                   ) -> list[PeerRate]:
    """The rates of ``--peer`` (none without it); a file that cannot be read is the
    parser's error."""
    try:
        return read(args.peer) if args.peer else []
    except (OSError, ValueError) as error:
        parser.error(str(error))


def comparison(rows: list[dict[str, object]], peers: list[PeerRate],
               engine: str = "auto") -> str:
    """One line per peer measurement and precision that ``rows`` (benchmarks.run's)
    measured too: gpuisa's rate, the peer's, the ratio and whether it meets its goal."""
    lines = []
    for peer in peers:
        for row in rows:
            if (row["workload"], row["n"]) != (peer.workload, peer.n) or engine not in row:
                continue
            got = float(row[engine])  # type: ignore[arg-type]
            precision = str(row["precision"])
            ratio, goal = got / peer.rate, GOALS[precision]
            verdict = "met" if ratio >= goal else "NOT met"
            lines.append(f"- {peer.workload}, {precision}, N = {peer.n:,}: {engine} "
                         f"{got / 1e6:.1f} M/s, {peer.engine} {peer.rate / 1e6:.1f} M/s: "
                         f"{ratio:.2f}x (goal {goal:g}x, {verdict})")
    return "\n".join(lines)


def first_call(peers: list[PeerRate], workload: str, seconds: float) -> str:
    """A first ``run()`` of ``workload`` on 10^6 vertices (``seconds``) against each
    peer's compile and run of the same batch, or "" if no peer line gives one."""
    parts = []
    for peer in peers:
        if peer.workload != workload or peer.n != 10**6 or peer.first_call is None:
            continue
        ratio = seconds / peer.first_call
        verdict = "met" if ratio <= FIRST_CALL_GOAL else "NOT met"
        parts.append(f"{ratio:.2f}x {peer.engine}'s {peer.first_call * 1e3:.0f} ms "
                     f"(goal <= {FIRST_CALL_GOAL:g}x, {verdict})")
    return "; ".join(parts)
