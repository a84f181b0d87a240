#!/usr/bin/env bash
# One-step set-up on a fresh Debian 12 machine: dependencies, then the build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
