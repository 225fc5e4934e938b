"""CI runs exactly the README's test command: the last line of ``.ci/run`` is the README's command, verbatim."""

import pathlib

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _ci_command() -> str:
    lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    return lines[-1]


def test_ci_runs_the_readme_command():
    cmd = _ci_command()
    assert "python3 -m pytest" in cmd
    readme = (ROOT / "README.md").read_text().splitlines()
    assert cmd in readme, "the last command of .ci/run must be a line of README.md (the Quick start's test command)"


def test_the_suite_runs_on_two_processes_with_xdist_in_the_test_extras():
    # the suite is sized for two processes (-n 2, pytest-xdist): the test extras must install the plugin
    assert " -n 2" in _ci_command()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert any(d.replace(" ", "").startswith("pytest-xdist") for d in extras)
