"""pyspark_standalone across the 3 hosts of the test cluster: Spark's own standalone master on the
first host and a worker on every host, the driver on the first, started by the harness's spark
launcher with the cluster description (docs/clusters.md): its work on every host and its
listening sockets checked in one run, a corrupted input in another. A large engine: these tests
run in scripts/test.sh's large-engines stage, and skip elsewhere when pyspark or Java is missing."""
from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

from cluster_helpers import check_corrupted_input_caught, check_work_on_every_host
from listening_across import check_listening, watched_run

# GRAPHS' two graphs, 6 rows each instead of 20: a row is a Spark job (about 2 s across the
# hosts), and 12 tasks a row reach every host's executor as 40 rows do.
SPARK_GRAPHS = ["-steps", "6", "-width", "6", "-type", "stencil_1d", "-and",
                "-steps", "6", "-width", "6", "-type", "nearest", "-radix", "3"]


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


def test_pyspark_runs_its_tasks_on_every_host_listening_only_on_their_addresses(cluster, tmp_path):
    """One run (its cluster takes a minute to start) for both: work on every host, and its
    sockets on loopback or their hosts' own addresses (listening_across.py)."""
    watched = watched_run(cluster, ["taskbench", "run", "--hosts", str(cluster.hosts_file), "--db",
                                    str(tmp_path / "runs.db"), "--timeout", "150", "pyspark_standalone",
                                    *SPARK_GRAPHS])
    assert watched.left == [], "still running 5 s after the harness returned"
    check_work_on_every_host(cluster, watched, tmp_path / "runs.db", SPARK_GRAPHS)
    check_listening(cluster, "pyspark_standalone", watched)


def test_pyspark_catches_a_corrupted_input_across_hosts(cluster, tmp_path):
    check_corrupted_input_caught(cluster, "pyspark_standalone", tmp_path / "runs.db", timeout=150)
