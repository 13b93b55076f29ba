"""gpuisa against another emulator's shader engine measured in the same window.

A harness of the other engine (e.g. Azahar's x64 shader JIT driven the way its vertex
loader drives it, over the shaders of :mod:`benchmarks.shaders` with the same inputs)
writes one line per measurement::

    azahar-jit skinning N=100000 21.4

(the engine's name, the workload, the number of vertices, millions of vertices per
second; more fields may follow; ``#`` starts a comment).  ``python -m benchmarks.run
--peer FILE`` prints, for every line of the file, gpuisa's default engine on the same
workload and N in both precisions and the ratio, against the goals of :data:`GOALS`.
Run both in one window: the machine is shared, and figures of different runs are not
comparable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: The ratio gpuisa's default engine is to reach over the peer, by precision: f24 is
#: bit-exact float24, which the peers do not compute; f32 is the peers' own arithmetic.
GOALS = {"f24": 2.0, "f32": 3.0}


@dataclass(frozen=True, slots=True)
class PeerRate:
    engine: str
    workload: str
    n: int
    rate: float  # vertices per second


def read(path: Path) -> list[PeerRate]:
    """The measurements of a peer results file (ValueError naming the line if one is
    not ``NAME WORKLOAD N=<n> <M/s>``)."""
    rates = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        try:
            engine, workload, size, mega = fields[:4]
            if not size.startswith("N="):
                raise ValueError(size)
            rates.append(PeerRate(engine, workload, int(size[2:]), float(mega) * 1e6))
        except ValueError:
            raise ValueError(f"{path}:{number}: expected 'ENGINE WORKLOAD N=<n> <M/s>', "
                             f"got {line!r}") from None
    return rates


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
