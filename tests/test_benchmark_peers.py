"""The comparison with another emulator's shader engine (benchmarks/peers.py): its file
format and the ratios against the goals, on figures written here by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import peers


def test_lines_give_rates_and_compile_times(tmp_path: Path) -> None:
    path = tmp_path / "peer.txt"
    path.write_text("# Azahar, same window\n\n"
                    "azahar-jit skinning N=100000 5.0\n"
                    "azahar-jit transform N=1000000 20.0 compile 1.5  # trailing note\n")
    skinning, transform = peers.read(path)
    assert (skinning.engine, skinning.workload, skinning.n, skinning.rate) == (
        "azahar-jit", "skinning", 100_000, 5e6)
    assert skinning.first_call is None
    assert transform.compile == pytest.approx(0.0015)
    assert transform.first_call == pytest.approx(0.0015 + 0.05)  # 10^6 at 20 M/s


def test_ratios_meet_the_goal_of_their_precision() -> None:
    rate = peers.PeerRate("azahar-jit", "skinning", 100_000, 10e6)
    rows = [{"workload": "skinning", "n": 100_000, "precision": "f24", "auto": 21e6},
            {"workload": "skinning", "n": 100_000, "precision": "f32", "auto": 29e6},
            {"workload": "skinning", "n": 10**6, "precision": "f24", "auto": 1e9}]
    f24, f32 = peers.comparison(rows, [rate]).splitlines()
    assert "2.10x (goal 2x, met)" in f24
    assert "2.90x (goal 3x, NOT met)" in f32


def test_a_first_call_is_compared_with_compile_and_run() -> None:
    rate = peers.PeerRate("azahar-jit", "lighting", 10**6, 10e6, compile=0.001)
    assert peers.first_call([rate], "lighting", 0.404).startswith("4.00x")  # 0.404 / 0.101
    assert "NOT met" in peers.first_call([rate], "lighting", 0.5)
    assert peers.first_call([rate], "transform", 0.1) == ""


def test_a_malformed_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "peer.txt"
    path.write_text("azahar-jit skinning 100000 5.0\n")
    with pytest.raises(ValueError, match=r"peer.txt:1: expected"):
        peers.read(path)
