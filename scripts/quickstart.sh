#!/usr/bin/env bash
# Placeholder until the data path lands: builds Spool.
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -DskipTests package
echo "Spool built. The local-cluster quickstart arrives with the data-path issue."
