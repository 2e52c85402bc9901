#!/bin/sh
# Re-resolve the pinned versions (docs/dependencies.md). One command, from the project root:
#   sh requirements/update.sh
# constraints.txt: the newest versions pyproject.toml's ranges allow today, for the
#   application and its test and bench extras, on every platform (tests, CI, Docker).
# minimal.txt: the oldest versions those ranges allow for our direct dependencies (CI's
#   second job checks that the lower bounds are true).
set -eu
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check "uv>=0.9"
common="pyproject.toml --extra test --extra bench --universal --python-version 3.11 --no-header --quiet"
python3 -m uv pip compile $common --upgrade -o requirements/constraints.txt
python3 -m uv pip compile $common --upgrade --resolution lowest-direct -o requirements/minimal.txt
echo "requirements/constraints.txt and requirements/minimal.txt updated: run the tests, commit both"
