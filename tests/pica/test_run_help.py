"""``pica run --help`` and ``pica trace --help`` describe the input and uniform files
(issue 28: the CSV layout was found by error), and the layouts they describe work."""

import json

import pytest

from gpuisa.pica.cli import main

SHADER = (".fvec offset\n.in inpos\n.out o position\n.proc main\n    add o, offset, inpos\n"
          "    end\n.end\n")


@pytest.mark.parametrize("command", ["run", "trace"])
def test_help_describes_the_files(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    for layout in ("a header of NAME.x,NAME.y,NAME.z,NAME.w columns per input",
                   "(N, 4): v0; (N, k, 4): v0 .. v(k-1)",
                   '{"inpos": [[x, y, z, w], ...]',
                   'uniform files (--uniforms, --gs-uniforms): .json {"NAME": value}'):
        assert layout in out, layout


def test_the_described_csv_and_uniforms_run(tmp_path, capsys):
    shader = tmp_path / "s.v.pica"
    shader.write_text(SHADER)
    csv = tmp_path / "v.csv"
    csv.write_text("inpos.x,inpos.y,inpos.z,inpos.w\n1,2,3,1\n")
    uniforms = tmp_path / "u.json"
    uniforms.write_text(json.dumps({"offset": [0.5, 0, 0, 0]}))
    assert main(["run", str(shader), "--inputs", str(csv), "--uniforms", str(uniforms),
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["outputs"]["o0"] == [[1.5, 2.0, 3.0, 1.0]]
