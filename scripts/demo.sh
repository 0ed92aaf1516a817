#!/usr/bin/env bash
# make demo: goodput's main job against its built-in mock, with nothing to
# install. The mock simulates a small continuous-batching engine (preset
# "tiny": 8 slots) with a DCGM-exporter endpoint; goodput searches for the
# knee under the interactive-chat SLO, measuring energy and cost in every
# round's window, then prints the summary and writes the run directory
# (report JSON, CSV, per-request JSON Lines, report.html, scorecard).
# Then a short multi-turn run: two users in conversations whose long
# system prompt the mock's prefix cache keeps, so turns after the first
# come back faster, next to the TTFT by turn the mock expects.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/goodput
tmp=$(mktemp -d)
mock_pid=""
cleanup() {
  if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
session=turns=4,prompt_tokens=64,output_tokens=32,prefix_tokens=1536
$bin mock --port 0 --url-file "$tmp/url" --preset tiny --dcgm-interval 100ms --processor o200k_base \
  --session-data "$session" >"$tmp/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 100); do [ -s "$tmp/url" ] && break; sleep 0.1; done
[ -s "$tmp/url" ] || { echo "demo: the mock did not start:"; cat "$tmp/mock.log"; exit 1; }
url=$(cat "$tmp/url")
echo "demo: mock engine (preset tiny) serving on $url"
$bin benchmark --target "$url" --rate-type knee --rampup 1 \
  --data prompt_tokens=256,output_tokens=128 --processor o200k_base \
  --max-seconds 4 --warmup 1s \
  --slo ttft_p90=500ms,itl_p90=50ms --target-load-tok-s 5000 \
  --dcgm-url "$url/dcgm/metrics" --telemetry-interval 250ms --telemetry-wait 2s \
  --gpu-cost-per-hour 2.5 --currency EUR --pue 1.3 --grid-intensity 56 \
  --label hardware=mock-L4 --label precision=bf16 --label model_revision=demo \
  --output-dir results --progress-interval 5s
echo
echo "demo: conversations ($session,"
echo "demo: a system prompt of its own per session), 2 users at 4 turns/s in all"
grep '^expected TTFT by turn' "$tmp/mock.log" | sed 's/^/demo: the mock /' | fold -s -w 98 | sed '1!s/^/  /'
$bin benchmark --target "$url" --rate-type user_centric --rate 4 --users 2 \
  --data "$session,prefix_count=100" --processor o200k_base --max-requests 16 \
  --output-dir results --progress-interval 5s
