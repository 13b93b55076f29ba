"""The ``fdre`` toolchain against the words freedreno's own assembler wrote.

data/fdre-words.txt holds seven programs in fdre's syntax (three of fdre-a2xx's own tests)
and the words its ``fdasm`` wrote for them, built from the freedreno commit the file
names; the expected words are fdre's, not gpuisa's.  gpuisa reads fdre's text as it is
(its ``@`` header lines are ignored).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpuisa.a2xx.asm import assemble
from gpuisa.a2xx.encoding import decode_fetch, slot_from_dwords

DATA = Path(__file__).parent / "data" / "fdre-words.txt"


def _programs() -> dict[str, tuple[str, list[int]]]:
    """{name: (fdre's input text, the words fdre wrote)}."""
    parts = re.split(r"^=== (.+) ===\n", DATA.read_text(), flags=re.MULTILINE)
    programs = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        text, words = body.split("--- words ---\n")
        programs[name] = (text, [int(w, 16) for w in words.split()])
    return programs


PROGRAMS = _programs()
# The programs with a fetch: only their fetches tell fdre's fills from the driver's.
WITH_FETCHES = {name for name, (text, _) in PROGRAMS.items() if "FETCH:" in text}


def test_the_data_holds_fdres_tests_and_gpuisas_programs() -> None:
    assert len(PROGRAMS) == 7
    assert sum(name.startswith("fdre-a2xx/asm/tests/") for name in PROGRAMS) == 3
    assert len(WITH_FETCHES) == 5


@pytest.mark.parametrize("name", PROGRAMS)
def test_fdre_text_assembles_to_fdres_words(name: str) -> None:
    text, words = PROGRAMS[name]
    assert assemble(text, toolchain="fdre") == words


@pytest.mark.parametrize("name", PROGRAMS)
def test_fdre_agrees_with_the_adreno_set_but_for_fetches(name: str) -> None:
    # fdre copied the Adreno driver's ALU and CF fills (MAXs, a temp third source), not
    # its vertex fetch prefetch counts or texture sample location.
    text, words = PROGRAMS[name]
    assert (assemble(text, toolchain="adreno") == words) == (name not in WITH_FETCHES)


@pytest.mark.parametrize("name", PROGRAMS)
def test_mesas_fills_are_not_fdres(name: str) -> None:
    # Mesa's ir2 starts from zero (ADDs in an unused scalar slot); every program has one.
    text, words = PROGRAMS[name]
    assert assemble(text, toolchain="mesa") != words


def _fetch(words: list[int], slot: int) -> tuple[int, int]:
    f = decode_fetch(slot_from_dwords(*words[3 * slot : 3 * slot + 3]))
    return f.prefetch_count, f.is_mini_fetch


def test_the_full_fetch_is_the_first_slot_or_none() -> None:
    # Read from fdre's words: in 0004.vs the three fetches fill slots 3-5, the first of
    # them the program's first instruction; in the program that starts with an ALU
    # instruction (slot 2) the fetches of slots 3-4 are both mini fetches.
    vs = PROGRAMS["fdre-a2xx/asm/tests/0004.vs.asm"][1]
    assert [_fetch(vs, slot) for slot in (3, 4, 5)] == [(1, 0), (0, 1), (0, 1)]
    alu_first = PROGRAMS["gpuisa: an ALU instruction before the vertex fetches"][1]
    assert [_fetch(alu_first, slot) for slot in (3, 4)] == [(0, 1), (0, 1)]
