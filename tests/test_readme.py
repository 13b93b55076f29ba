"""The README's commands run as written (issue 28): every ``pica``, ``a2xx`` and
``python -m gpuisa`` line of its ``sh`` blocks, in order, in a copy of examples/, must
exit 0.  A README that drifts from the code or from examples/ fails here.

Left out: ``pica lsp`` (a server that runs until its editor closes it), the lines that
read a user's Xenia dump, XDK container or game data (``dump/``, ``shader.xvu``,
``cut.bin``: no public one may be shipped; ``tests/a2xx/test_a2xx_cli_containers.py``
runs the same commands on files built from the documented layout), the lines that drive
an emulator's adapter (``--adapter``: ``tests/pica/vectors/test_readme_adapter.py`` builds
the C adapter with the system compiler and runs them) and the lines of other programs
(pip, pytest, npm, code, cc).
The ``console`` transcript of "Static analysis" shows its own ``cat`` of the file it
checks.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: How each command is started: through the interpreter running the tests, so that the
#: source tree under test is the one run (not an installed console script).
PROGRAMS = {"pica": ["-m", "gpuisa"], "a2xx": ["-m", "gpuisa.a2xx"]}
#: Commands of the README that are not run (see the module docstring).
SKIPPED = ("pica lsp", "dump/", "shader.xvu", "cut.bin", "--adapter")


def readme_commands(text: str) -> list[str]:
    """The gpuisa command lines of the ``sh`` blocks, continuation lines joined and
    comments removed."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL):
        for line in re.sub(r"\\\n\s*", " ", block).splitlines():
            line = re.sub(r"(^|\s)#.*", "", line).strip()
            words = line.split()
            if not words:
                continue
            ours = words[0] in PROGRAMS or words[:3] in (["python", "-m", "gpuisa"],
                                                         ["python", "-m", "gpuisa.a2xx"])
            if ours and not any(skipped in line for skipped in SKIPPED):
                commands.append(" ".join(words))
    return commands


def _argv(command: str) -> list[str]:
    words = shlex.split(command)
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    return [sys.executable, *PROGRAMS[words[0]], *words[1:]]


def test_the_readme_has_the_commands_this_test_runs():
    commands = readme_commands(README.read_text())
    # Each block is found: asm of the quick start, a2xx, render, vectors --check.
    for start in ("pica asm -o shader.shbin", "a2xx asm shader.txt", "pica render lit.v.pica",
                  "pica vectors --check results-f32.jsonl", "python -m gpuisa check"):
        assert any(c.startswith(start) for c in commands), start
    assert not any(c.startswith("pica lsp") for c in commands)
    # A placeholder such as "pica asm -n ..." cannot run as written.
    assert not [c for c in commands if "..." in c or "[" in c]


def test_comments_and_continuations_are_read_as_a_shell_reads_them():
    text = ("```sh\npica run a.shbin --inputs v.json   # a table\n"
            "pica render a.v.pica --mesh m.ply \\\n    -o x.png   # picture\n"
            "pip install gpuisa\npica lsp\n```\n```python\npica.run()\n```\n")
    assert readme_commands(text) == ["pica run a.shbin --inputs v.json",
                                     "pica render a.v.pica --mesh m.ply -o x.png"]


def test_every_readme_command_runs_as_written(tmp_path):
    pytest.importorskip("trimesh")
    pytest.importorskip("PIL")
    work = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", work)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    for command in readme_commands(README.read_text()):
        done = subprocess.run(_argv(command), cwd=work, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"


def test_the_binary_examples_are_what_their_script_makes(monkeypatch):
    # The meshes and arrays in examples/ are those make_examples.py writes (the results
    # files are checked by the README commands that read them).
    pytest.importorskip("trimesh")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import make_examples

    made = {**make_examples.meshes(), **make_examples.inputs()}
    assert {name: (ROOT / "examples" / name).read_bytes() == data
            for name, data in made.items()} == dict.fromkeys(made, True)
