#!/usr/bin/env bash
# make bench: Go micro-benchmarks, then the end-to-end performance suite
# (bench/suite) against the mock in separate processes. Figures are printed
# with their targets; the exit status is non-zero only for a broken run.
# BENCH_QUICK=1 runs shorter versions; BENCH_MD=FILE also writes a table.
# The gate section's client-cost report goes to BENCH_JSON (default
# bin/bench-client-cost.json): goodput compare judges it against
# bench/baseline/<kind>.json (see make bench-gate).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== Go benchmarks"
go test -run '^$' -bench . -benchtime "${BENCHTIME:-1s}" -benchmem \
  ./sse ./record ./loadgen ./tokenize ./report 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
quick=""; [ -n "${BENCH_QUICK:-}" ] && quick="-quick"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import aiohttp' 2>/dev/null \
  || echo "note: Debian's python3-aiohttp is missing (apt-get install python3-aiohttp): the Python comparison will fail"
go run ./bench/suite $quick -goodput bin/goodput -json "${BENCH_JSON:-bin/bench-client-cost.json}" ${BENCH_MD:+-md "$BENCH_MD"}
