"""pican's "must-fail directory": every ``check_fail/ID_*.pica`` names on its lines, in
``; expect: ID`` comments, exactly the findings ``pica check`` must report (check and
line); every ``check_pass/*.pica`` must produce none."""

from pathlib import Path

import pytest

from gpuisa.pica import check
from gpuisa.pica.check import CHECKS

HERE = Path(__file__).parent
FAIL = sorted((HERE / "check_fail").glob("*.pica"))
PASS = sorted((HERE / "check_pass").glob("*.pica"))


def expected(text: str) -> set[tuple[str, int]]:
    out = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if "; expect:" in line:
            out.add((line.split("; expect:")[1].split()[0], number))
    return out


def enabled(text: str) -> list[str]:
    return [line.split("; enable:")[1].strip() for line in text.splitlines()
            if line.startswith("; enable:")]


@pytest.mark.parametrize("path", FAIL, ids=lambda p: p.stem)
def test_must_fail(path):
    text = path.read_text()
    want = expected(text)
    assert want, "a must-fail fixture names its findings"
    assert {check_id for check_id, _ in want} == {path.stem.split("_")[0]}
    found = check([(path.name, text)], enable=enabled(text))
    assert {(f.check, f.where.line) for f in found} == want


@pytest.mark.parametrize("path", PASS, ids=lambda p: p.stem)
def test_must_pass(path):
    assert [(f.check, f.where.line, f.message) for f in check([(path.name, path.read_text())])
            ] == []


def test_every_source_level_check_has_a_must_fail_fixture():
    covered = {p.stem.split("_")[0] for p in FAIL}
    # binary-only or limit checks are covered by test_check_binary.py
    assert set(CHECKS) - covered == {"PICA009", "PICA601", "PICA602", "PICA603"}
