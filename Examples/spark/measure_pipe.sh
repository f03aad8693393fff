#!/usr/bin/env bash
# Bytes per record and lines per second of `linkparse`, the full record against selections, written to /dev/null,
# through a pipe into `cat` (which only copies), and into a Python process that reads it line by line, as
# PySpark's RDD.pipe does.
#
#   Examples/spark/measure_pipe.sh [INPUT] [ROUNDS]
#
# INPUT defaults to the benchmark corpus repeated to 100,000 lines (make bench-compare writes the corpus);
# each figure is the best of ROUNDS (5) runs. Needs the release binary (make build).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${LINKPARSE:-.build/release/linkparse}
INPUT=${1:-}
ROUNDS=${2:-5}
if [ -z "$INPUT" ]; then
  [ -f Benchmarks/corpus/callbacks.txt ] || python3 Benchmarks/generate-corpus.py Benchmarks/corpus/callbacks.txt >&2
  INPUT=.build/corpus-100k.txt
  if [ ! -f "$INPUT" ]; then for _ in 1 2 3 4 5 6 7 8 9 10; do cat Benchmarks/corpus/callbacks.txt; done > "$INPUT"; fi
fi
lines=$(wc -l < "$INPUT")
echo "input: $INPUT, $lines lines, $(wc -c < "$INPUT") bytes; best of $ROUNDS"

best() {  # best wall time in seconds of ROUNDS runs of "$@" (a shell command)
  local best=""
  for _ in $(seq "$ROUNDS"); do
    local start end
    start=$(date +%s.%N)
    bash -c "$1" || true
    end=$(date +%s.%N)
    best=$(python3 -c "t=$end-$start; b='$best'; print(t if not b or t < float(b) else b)")
  done
  echo "$best"
}

READER="python3 -c 'import sys
for line in sys.stdin.buffer: pass'"
printf '%-48s %10s %9s %13s %13s %13s\n' "options" "output MB" "B/record" "lines/s null" "lines/s cat" "lines/s py"
for options in "" "--redact" "--pipeline --fields compact" "--pipeline --fields compact --redact" \
  "--pipeline --fields callback.provider,callback.outcome,callback.code,callback.state,callback.error.code"; do
  bytes=$("$BIN" $options "$INPUT" | wc -c || true)
  null=$(best "'$BIN' $options '$INPUT' > /dev/null")
  pipe=$(best "'$BIN' $options '$INPUT' | cat > /dev/null")
  python=$(best "'$BIN' $options '$INPUT' | $READER")
  python3 -c "
b=$bytes; n=$lines
print('%-48s %10.1f %9.0f %13.0f %13.0f %13.0f' % ('${options:-(default)}'[:48], b/1e6, b/n, n/$null, n/$pipe, n/$python))"
done
