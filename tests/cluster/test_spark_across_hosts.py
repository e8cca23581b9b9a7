"""spark_standalone across the 3 hosts of the test cluster: Spark's own standalone master on the
first host and a worker on every host, the driver on the first, started by the harness's spark
launcher with the cluster description (docs/clusters.md). A large engine: these tests run in
scripts/test.sh's large-engines stage, and skip elsewhere when pyspark or Java is missing."""
from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

from cluster_helpers import GRAPHS, check_corrupted_input_caught, check_work_on_every_host, run_across


def missing_spark() -> str:
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (scripts/install-large-engines.sh)"
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return "Java is not installed (scripts/install-large-engines.sh)"
    return ""


# At collection, before the session's test cluster is built for nothing; the large-engines
# stage (TASKBENCH_REQUIRE_LARGE_ENGINES=1) fails instead.
if missing_spark() and os.environ.get("TASKBENCH_REQUIRE_LARGE_ENGINES") != "1":
    pytest.skip(missing_spark(), allow_module_level=True)


@pytest.fixture(autouse=True)
def spark_installed():
    if missing_spark():
        pytest.fail(missing_spark())


def test_spark_runs_its_tasks_on_every_host(cluster, tmp_path):
    got = run_across(cluster, "spark_standalone", tmp_path / "runs.db", GRAPHS, timeout=150)
    check_work_on_every_host(cluster, got, tmp_path / "runs.db")


def test_spark_catches_a_corrupted_input_across_hosts(cluster, tmp_path):
    check_corrupted_input_caught(cluster, "spark_standalone", tmp_path / "runs.db", timeout=150)
