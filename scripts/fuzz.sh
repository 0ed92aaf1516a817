#!/usr/bin/env bash
# Runs every fuzz target in the module for a bounded time each.
set -euo pipefail
t=${1:-5s}
cd "$(dirname "$0")/.."
fail=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/.*func (Fuzz[A-Za-z0-9_]+).*/\1/' <<<"$line")
  pkg=$(dirname "$file")
  echo "fuzz $pkg $name ($t)"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" >/tmp/goodput-fuzz.log 2>&1; then
    cat /tmp/goodput-fuzz.log; fail=1
  fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(' . | sort)
exit $fail
