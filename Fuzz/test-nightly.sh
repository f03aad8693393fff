#!/usr/bin/env bash
# Checks the nightly fuzzing machinery without touching the committed corpus:
#
#   Fuzz/test-nightly.sh [--no-build] [--time SECONDS] [--skip-build-sh]
#
# 1. The planted crash: `LINKPARSE_FUZZ_PLANTED_CRASH=parse Fuzz/run.sh --nightly` on a temporary copy of
#    corpus/ must fuzz both targets it is given (parse, then params), find the planted crash (an input containing
#    PLANTED-CRASH traps in fuzz-parse), minimize it into the copy's regressions/, report it in
#    report.json and report.md, and exit 1. The real corpus/ must be left as it was. (The marker is added to a
#    copy of the dictionary, so that the fuzzer finds it in seconds.)
# 2. .clusterfuzzlite/build.sh, run natively (OUT and SRC set): every target, with its seed corpus zip,
#    dictionary and options, in $OUT, and each binary runs its seeds.
# 3. Scripts/check-yaml.py: the workflow and ClusterFuzzLite YAML files parse (PyYAML installed if missing).
#
#   --no-build       use the fuzz binaries already built (Fuzz/.build)
#   --time SECONDS   fuzzing time per target in check 1 (default 30)
#   --skip-build-sh  skip check 2
#
# Exit status: 0 every check passed; 1 a check failed (each failure is printed).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_FLAG=()
SECONDS_PER_TARGET=30
BUILD_SH=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD_FLAG=(--no-build); shift ;;
    --time) SECONDS_PER_TARGET="$2"; shift 2 ;;
    --skip-build-sh) BUILD_SH=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-nightly.sh: unknown argument '$1' (try --help)" >&2; exit 1 ;;
  esac
done

failures=0
fail() { echo "test-nightly: FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "test-nightly: ok: $*"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/linkparse-test-nightly.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# What the real corpus is before: every file's name and hash.
snapshot() { (cd "$ROOT/corpus" && find . -type f | sort | xargs sha1sum); }
corpus_before=$(snapshot)

echo "== test-nightly: 1. planted crash (parse) through Fuzz/run.sh --nightly on a copy of corpus/"
cp -R corpus "$WORK/corpus"
{ cat Fuzz/linkparse.dict; echo '"PLANTED-CRASH"'; } > "$WORK/planted.dict"
set +e
LINKPARSE_FUZZ_PLANTED_CRASH=parse Fuzz/run.sh --nightly ${BUILD_FLAG[@]+"${BUILD_FLAG[@]}"} \
  --corpus "$WORK/corpus" --report-dir "$WORK/report" --target parse --target params \
  --time "$SECONDS_PER_TARGET" --seed 1 -- -dict="$WORK/planted.dict" 2>&1 | tee "$WORK/nightly.log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" = 1 ]; then pass "run.sh exited 1"; else fail "run.sh exited $status, expected 1 (a problem stored)"; fi
planted=""
for file in "$WORK"/corpus/regressions/parse-*; do
  if [ -f "$file" ] && grep -q PLANTED-CRASH "$file"; then planted=$file; fi
done
if [ -n "$planted" ]; then
  pass "minimized into regressions/: $(basename "$planted") ($(wc -c < "$planted") bytes)"
else
  fail "no regressions/parse-* file with PLANTED-CRASH in the corpus copy"
fi
for file in report.json report.md; do
  [ -s "$WORK/report/$file" ] || fail "no $file in the report directory"
done
if [ -s "$WORK/report/report.json" ]; then
  if python3 - "$WORK/report/report.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
rows = {row["target"]: row for row in report["targets"]}
assert list(rows) == ["parse", "params"], f"targets {list(rows)}"
assert rows["parse"]["outcome"] == "found" and rows["parse"]["crashes"] >= 1, rows["parse"]
assert rows["params"]["outcome"] == "ok" and rows["params"]["executions"] > 0, rows["params"]
for row in rows.values():
    for key in ("executions", "exec_per_sec", "cov_after", "ft_after", "corpus_before", "corpus_after", "peak_rss_mb"):
        assert isinstance(row[key], int), f"{row['target']}: {key} = {row[key]!r}"
EOF
  then pass "report.json: parse found the crash, params ran clean after it, every number present"
  else fail "report.json does not say what the run did"; fi
fi
grep -q '^| parse | found |' "$WORK/report/report.md" 2>/dev/null && pass "report.md has the table" \
  || fail "report.md has no row for parse"
if [ "$(snapshot)" = "$corpus_before" ]; then pass "the real corpus/ is unchanged"; else
  fail "the real corpus/ changed (git status corpus/)"; fi

if [ "$BUILD_SH" = 1 ]; then
  echo "== test-nightly: 2. .clusterfuzzlite/build.sh, natively"
  out="$WORK/out"
  if OUT="$out" SRC="$ROOT" bash .clusterfuzzlite/build.sh; then
    pass "build.sh succeeded"
    for target in $(Fuzz/run.sh --list); do
      binary="$out/fuzz-$target"
      seeds="$WORK/seeds-$target"
      if [ ! -x "$binary" ] || ! grep -q LLVMFuzzerTestOneInput "$binary"; then
        fail "$binary: missing, or not a libFuzzer target"; continue
      fi
      for extra in "_seed_corpus.zip" ".dict" ".options"; do
        [ -s "$out/fuzz-$target$extra" ] || fail "$out/fuzz-$target$extra is missing"
      done
      mkdir -p "$seeds" && unzip -q -o "$out/fuzz-${target}_seed_corpus.zip" -d "$seeds"
      # (find, not ls: a target without regressions is not an error under pipefail)
      expected=$(( $(find corpus/"$target" -type f | wc -l) + $(find corpus/regressions -name "$target-*" -type f | wc -l) ))
      [ "$(ls "$seeds" | wc -l)" = "$expected" ] || fail "fuzz-$target: $(ls "$seeds" | wc -l) seeds zipped, expected $expected"
      if "$binary" -runs=0 -dict="$out/fuzz-$target.dict" "$seeds" > "$WORK/run-$target.log" 2>&1; then
        pass "fuzz-$target runs its $expected seeds"
      else
        fail "fuzz-$target does not run its seeds:"; tail -5 "$WORK/run-$target.log" >&2
      fi
    done
  else
    fail "build.sh failed"
  fi
fi

echo "== test-nightly: 3. the YAML files parse"
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet pyyaml
if python3 Scripts/check-yaml.py; then pass "Scripts/check-yaml.py"; else fail "Scripts/check-yaml.py"; fi

if [ "$failures" -gt 0 ]; then echo "test-nightly: $failures check(s) failed" >&2; exit 1; fi
echo "test-nightly: every check passed"
