#!/usr/bin/env bash
# Builds (if needed) and runs the whole test suite: unit, integration, real gdb, offscreen GUI.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j2 --timeout 300
