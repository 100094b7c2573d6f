#!/usr/bin/env bash
# Runs tilec's libFuzzer targets for a fixed time each (docs/reliability.md).
#
#   tests/fuzz/run-fuzzers.sh BUILD SECONDS [TARGET...]
#
# BUILD is a build directory configured with TILEC_FUZZ=ON (build-asan, as
# `make test-asan` makes it); TARGET is compile and/or interpret (default:
# both). Each target fuzzes a scratch copy of its seed corpus in
# BUILD/fuzz/TARGET/corpus (the seeds in the source tree stay as they are),
# with the dictionary tests/fuzz/tilec.dict, for SECONDS seconds; an input
# that runs over 10 s counts as a hang. Findings (crash-*, timeout-*,
# leak-*, oom-*) are written to BUILD/fuzz/TARGET/, the log to
# BUILD/fuzz/TARGET.log. Exit status 1 when a target found anything.
# FUZZ_FLAGS adds libFuzzer flags (e.g. FUZZ_FLAGS=-jobs=2).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "$1" && pwd)"
seconds="$2"
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(compile interpret)

status=0
for t in "${targets[@]}"; do
  bin="$build/bin/tilec-fuzz-$t"
  dir="$build/fuzz/$t"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp "$root/tests/fuzz/corpus/$t/"* "$dir/corpus/"
  echo "fuzzing $t for ${seconds}s: log in $dir.log"
  # Every sanitizer report is fatal (-fno-sanitize-recover); libFuzzer
  # writes the input to a crash-* file. The targets' own ASan defaults are
  # in tests/fuzz/FuzzCase.cpp.
  if ! UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
       "$bin" "$dir/corpus" -dict="$root/tests/fuzz/tilec.dict" \
         -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
         -max_len=32768 -artifact_prefix="$dir/" -print_final_stats=1 \
         ${FUZZ_FLAGS:-} >"$dir.log" 2>&1; then
    status=1
    echo "tilec-fuzz-$t FAILED; the end of its log:" >&2
    tail -60 "$dir.log" >&2
  fi
  grep -E '^stat::number_of_executed_units|^Done [0-9]+ runs' "$dir.log" || true
done
exit $status
