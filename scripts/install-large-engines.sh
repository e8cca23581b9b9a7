#!/usr/bin/env bash
# Installs the large optional engines, idempotently: Java 17 (Debian's openjdk-17-jre-headless,
# for Spark) and the pyproject groups `spark`, `tensorflow` and `legion` (legate's wheel with
# Legion and Realm, and nvidia-cuda-runtime: a build configured after this finds them) into the
# project venv. Only the last stage of scripts/test.sh (and a user who wants these systems) runs
# it; a second run installs nothing and takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! dpkg-query -W -f='${Status}' openjdk-17-jre-headless 2>/dev/null | grep -q "install ok installed"; then
  echo "install-large-engines: installing openjdk-17-jre-headless"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv --system-site-packages .venv
.venv/bin/python scripts/install-python-deps.py --large
