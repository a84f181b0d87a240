#!/usr/bin/env bash
# Configures and builds hermit into ./build with two parallel jobs.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j2
