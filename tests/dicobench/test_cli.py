import subprocess
import sys

from dicobench.cli.main import main


def test_build_cli_writes_a_loadable_folder(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["build", "--out", str(out), "--per-task", "1", "--tasks", "attribute", "--num-proc", "1",
                 "--quiet"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (out / "attribute" / "test-00000-of-00001.parquet").exists()


def test_bad_input_is_one_line_and_status_2(tmp_path):
    for args in (["--per-task", "-3"], ["--tasks", "nope"]):
        proc = subprocess.run(
            [sys.executable, "-m", "dicobench.cli.main", "build", "--out", str(tmp_path / "o"), *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("dicobench: error:")
        assert "Traceback" not in proc.stderr
