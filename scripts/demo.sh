#!/usr/bin/env bash
# make demo: start the built-in mock on loopback, run a short benchmark
# against it, print the summary and write the report files under results/.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./bin/goodput
tmp=$(mktemp -d)
trap 'kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
$bin mock --port 0 --url-file "$tmp/url" --ttft 40ms --ttft-stdev 5ms --itl 8ms --itl-stdev 1ms >"$tmp/mock.log" 2>&1 &
mock_pid=$!
for _ in $(seq 100); do [ -s "$tmp/url" ] && break; sleep 0.1; done
[ -s "$tmp/url" ] || { echo "demo: the mock did not start:"; cat "$tmp/mock.log"; exit 1; }
url=$(cat "$tmp/url")
echo "demo: mock serving on $url"
$bin benchmark --target "$url" --rate-type concurrent --rate 1,4,16,32 \
  --data prompt_tokens=256,output_tokens=128 --max-seconds 8 --warmup 1s \
  --output-dir results --label demo=true
