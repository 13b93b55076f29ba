"""The shell blocks of README.md's "Wiring in your emulator" section, run as written from
a directory that holds the repository's examples: `cc` through the system C compiler,
`pica` through gpuisa's command line (in this process, on the session's suite)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from gpuisa.pica import cli, vectors

ROOT = Path(__file__).resolve().parents[3]
SECTION = "### Wiring in your emulator"


def commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8").split(SECTION, 1)[1]
    text = text.split("\n#", 1)[0]
    blocks = [b.split("```", 1)[0] for b in text.split("```sh\n")[1:]]
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_section_builds_and_runs_the_c_adapter():
    assert [c.split()[:2] for c in commands()] == [["cc", "-std=c99"], ["pica", "vectors"],
                                                    ["pica", "fuzz"]]


def test_the_readme_commands_run_as_written(suite, tmp_path, monkeypatch, capsys):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler named cc on this machine")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(vectors, "build_suite", lambda progress=None, rounding=None: suite)
    for command in commands():
        words = shlex.split(command)
        if words[0] != "pica":
            subprocess.run(words, check=True, timeout=120)
            continue
        code = cli.main(words[1:])
        first = capsys.readouterr().out.splitlines()[0]
        if words[1] == "fuzz":  # the shipped adapter agrees with gpuisa on these programs
            assert (code, first) == (0, "40 programs (0 refused by gpuisa, 0 unsupported "
                                        "by the adapter), 0 causes of divergence "
                                        "(findings/findings.jsonl)")
            continue
        assert code in (0, 1) and first.endswith(f"of {len(suite)} checked cases diverge "
                                                 "(f32 mode)"), (command, first)
    results = [json.loads(line)
               for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in results] == [case.id for case in suite]
