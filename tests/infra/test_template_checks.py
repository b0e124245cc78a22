"""cfn-lint and checkov on both stages' synthesised templates (`make test` runs these).

cfn-lint must find no error (warnings such as W3005, the CDK's redundant DependsOn, are tolerated);
every checkov finding must be acknowledged with a reason in infra/checkov_acks.py, and every
acknowledgement must still match a finding. checkov pins boto3 and packaging older than ours, so it
lives in its own venv (.venv-checkov, `make checkov`); without it this test is skipped, unless
MNEMO_REQUIRE_CHECKOV is set (the Makefile sets it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cfnlint.api import ManualArgs, lint

from infra.checkov_acks import unacknowledged, unused
from tests.infra.conftest import Synth

ROOT = Path(__file__).resolve().parents[2]
# where a stage may deploy: the resource specifications of these regions are checked
REGIONS = ["us-east-1", "eu-west-1"]


def template_text(s: Synth) -> str:
    return json.dumps(s.template.to_json(), indent=1)


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_cfn_lint_finds_no_error(stage: str, request: pytest.FixtureRequest) -> None:
    s: Synth = request.getfixturevalue(stage)
    matches = lint(template_text(s), config=ManualArgs(regions=REGIONS))
    errors = [f"{m.rule.id} {m.message} ({'/'.join(map(str, m.path))})" for m in matches if m.rule.id.startswith("E")]
    assert errors == []


def checkov() -> str | None:
    for candidate in (os.environ.get("MNEMO_CHECKOV"), str(ROOT / ".venv-checkov" / "bin" / "checkov"),
                      shutil.which("checkov")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def findings(binary: str, template: Path) -> list[tuple[str, str]]:
    run = subprocess.run([binary, "-f", str(template), "--framework", "cloudformation", "--skip-download",
                          "--quiet", "--compact", "-o", "json"], capture_output=True, text=True, timeout=300,
                         check=False)
    if run.returncode not in (0, 1):  # 1: findings
        pytest.fail(f"checkov failed: {run.stderr[-2000:]}")
    report = json.loads(run.stdout)
    if isinstance(report, list):  # one report per framework
        (report,) = report
    if "results" not in report:  # nothing failed and nothing passed: the template was not read
        pytest.fail(f"checkov read nothing in {template}")
    return [(f["check_id"], f["resource"].split(".", 1)[1]) for f in report["results"]["failed_checks"]]


def test_checkov_findings_are_acknowledged(dev: Synth, prod: Synth, tmp_path: Path) -> None:
    binary = checkov()
    if binary is None:
        if os.environ.get("MNEMO_REQUIRE_CHECKOV"):
            pytest.fail("checkov not found: `make checkov` builds .venv-checkov")
        pytest.skip("checkov is not installed (`make checkov`)")
    found: list[tuple[str, str]] = []
    for stage, s in (("dev", dev), ("prod", prod)):
        template = tmp_path / f"mnemo-{stage}.template.json"
        template.write_text(template_text(s))
        stage_findings = findings(binary, template)
        assert unacknowledged(stage_findings) == [], stage
        found += stage_findings
    assert [ack.check for ack in unused(found)] == []
