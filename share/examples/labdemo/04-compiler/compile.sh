#!/bin/sh
# The vendor's compile command (delivered 2026-08-29, CALC-1150), run in the
# pinned offline image.  Secrets and the license server come from the
# environment (CALCC_LICENSE_SERVER), never from this file or the logs.
# usage: BUILD_ID=build-3 ./compile.sh
set -eu
cd "$(dirname "$0")"
IMAGE=registry.calculet.example/sdk/calcc@sha256:be467f93d5551c27aa4785708e032fd7d530992d0f2e9b18a4f08300cfc76e80
: "${BUILD_ID:?set BUILD_ID}"
mkdir -p logs
exec docker run --rm --network=none \
  -e CALCC_LICENSE_SERVER \
  -v "$(cd .. && pwd)":/ws -w /ws/04-compiler \
  "$IMAGE" \
  calcc compile --config compile-config.yaml --deterministic --full-log \
  >"logs/$BUILD_ID.log" 2>&1
