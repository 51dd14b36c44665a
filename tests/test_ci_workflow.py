"""docs/ci/wirebench-ab.yml, the pull-request A/B workflow the docs offer: its commands run
here as the workflow runs them, with the base revision HEAD (an A/A), and leave what its
later steps use (the Markdown, the BMF export, the status)."""

import json
import os
import re
import subprocess

import yaml

from wirebench import paths

from .conftest import need_driver

WORKFLOW = paths.ROOT / "docs" / "ci" / "wirebench-ab.yml"


def steps() -> dict[str, dict]:
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["ab"]
    return {s.get("name") or s.get("uses"): s for s in job["steps"]}


def test_the_workflow_checks_out_the_history_and_uploads_what_it_made():
    s = steps()
    assert s["actions/checkout@v4"]["with"]["fetch-depth"] == 0
    uploaded = s["actions/upload-artifact@v4"]["with"]["path"].split()
    assert {"ab.md", "ab.bmf.json", "ab.db"} <= set(uploaded)
    assert "steps.ab.outputs.status" in s["Fail on a regression"]["if"]


@need_driver("go")
def test_its_ab_step_runs_here_and_passes_an_aa(tmp_path):
    step = steps()["A/B against the base"]
    env = {**os.environ, "BASE": "HEAD", "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    env["GITHUB_OUTPUT"] = str(tmp_path / "output")
    # Its own commands, on half the rounds and one layout variant a side (each variant of
    # the base revision is one more link): what is tested is the step, not the verdict.
    assert "--repeat 6" in step["run"]
    script = step["run"].replace("--repeat 6", "--repeat 3 --layouts 1")
    script = script.replace("ab.db", str(tmp_path / "ab.db"))
    script = script.replace("ab.md", str(tmp_path / "ab.md")).replace(
        "ab.bmf.json", str(tmp_path / "ab.bmf.json")
    )
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=paths.ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = (tmp_path / "summary").read_text()
    assert "committed (B) against rev=HEAD (A)" in summary
    # An A/A calls a cell slower in at most 5% of runs (the false discovery rate): the
    # step's status follows its verdicts, whichever they are.
    slower = int(re.search(r"\*\*(\d+) slower", summary)[1])
    status = (tmp_path / "output").read_text().strip()
    assert status == ("status=1" if slower else "status=0")
    assert json.loads((tmp_path / "ab.bmf.json").read_text())
