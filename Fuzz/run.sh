#!/usr/bin/env bash
# Builds LinkParse's libFuzzer targets and runs them on the committed corpus.
#
#   Fuzz/run.sh [--time SECONDS] [--target NAME] [--no-build] [--keep] [--list] [-- LIBFUZZER_FLAGS...]
#
#   --time SECONDS   how long each target fuzzes (default 60); nightly: Fuzz/run.sh --time 3600
#   --target NAME    run one target (parse, params, cli, …: one per directory in Fuzz/Targets/)
#   --no-build       use the binaries already in Fuzz/.build
#   --keep           keep the work directory (new corpus entries, logs) and print where it is
#   --list           print the target names and exit
#   -- FLAGS         passed to libFuzzer as they are (e.g. -- -jobs=2 -use_value_profile=1)
#
# Each target reads its seeds from corpus/<target>/ and writes the new inputs it finds to a temporary
# directory, never into the committed corpus. A crash, a sanitizer report, an invariant violation, a
# timeout or running out of memory is minimized and stored as corpus/regressions/<target>-<sha1> (which
# the unit tests replay), its bytes are printed in hex, and the script exits with status 1 once every
# target has run. Status 2: the build failed or a fuzzer could not run.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=60
ONLY=""
BUILD=1
KEEP=0
EXTRA=()
ALL_TARGETS=()
for dir in Fuzz/Targets/*/; do ALL_TARGETS+=("$(basename "$dir")"); done

while [ $# -gt 0 ]; do
  case "$1" in
    --time) SECONDS_PER_TARGET="$2"; shift 2 ;;
    --target) ONLY="$2"; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --keep) KEEP=1; shift ;;
    --list) printf '%s\n' "${ALL_TARGETS[@]}"; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done

if [ -n "$ONLY" ]; then
  if [ ! -d "Fuzz/Targets/$ONLY" ]; then
    echo "run.sh: no target '$ONLY'; targets: ${ALL_TARGETS[*]}" >&2
    exit 2
  fi
  TARGETS=("$ONLY")
else
  TARGETS=("${ALL_TARGETS[@]}")
fi

# libFuzzer and AddressSanitizer for the Swift code; UndefinedBehaviorSanitizer for the C code (CICUShims):
# swiftc has no -sanitize=undefined on Linux, and Swift's own overflow and bounds checks stay on in -O builds.
# -parse-as-library because libFuzzer provides main().
SANITIZE=(
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
  -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined
)
BUILD_ARGS=(--package-path Fuzz --scratch-path Fuzz/.build -c release "${SANITIZE[@]}")
if [ "$BUILD" = 1 ]; then
  echo "== fuzz: building ${TARGETS[*]} (release, -sanitize=fuzzer,address)"
  build_started=$(date +%s)
  # Product by product: a plain `swift build` would also build the parent's `linkparse` executable, whose
  # top-level code -parse-as-library rejects. After the first, each build only compiles and links one file.
  # (ld.gold's "Cannot export local symbol '__asan_…'" warnings are noise of the ASan runtime: filtered.)
  for target in "${TARGETS[@]}"; do
    set +e
    swift build "${BUILD_ARGS[@]}" --product "fuzz-$target" 2>&1 | grep --line-buffered -v "Cannot export local symbol"
    status=${PIPESTATUS[0]}
    set -e
    [ "$status" = 0 ] || { echo "run.sh: building fuzz-$target failed" >&2; exit 2; }
  done
  echo "== fuzz: built in $(( $(date +%s) - build_started )) s"
fi
BIN_DIR=$(swift build "${BUILD_ARGS[@]}" --show-bin-path)

DICT="$ROOT/Fuzz/linkparse.dict"
MAX_LEN=4096
TIMEOUT=10
RSS_MB=2048
WORK=$(mktemp -d "${TMPDIR:-/tmp}/linkparse-fuzz.XXXXXX")
if [ "$KEEP" = 0 ]; then trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p corpus/regressions

found=0
broken=0
for target in "${TARGETS[@]}"; do
  binary="$BIN_DIR/fuzz-$target"
  seeds="corpus/$target"
  new="$WORK/$target/corpus"
  artifacts="$WORK/$target/artifacts"
  log="$WORK/$target/fuzz.log"
  mkdir -p "$new" "$artifacts" "$seeds"
  if [ ! -x "$binary" ]; then
    echo "run.sh: $binary is missing (build with Fuzz/run.sh, without --no-build)" >&2
    broken=1
    continue
  fi
  echo "== fuzz: $target for ${SECONDS_PER_TARGET} s ($(ls "$seeds" | wc -l) seeds)"
  status=0
  # The first directory receives new inputs; the committed seeds are only read.
  "$binary" -dict="$DICT" -max_len=$MAX_LEN -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB \
    -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    ${EXTRA[@]+"${EXTRA[@]}"} "$new" "$seeds" > "$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  added=$(ls "$new" | wc -l)
  crashes=$(find "$artifacts" -type f | sort)
  if [ -z "$crashes" ]; then
    if [ "$status" != 0 ]; then
      echo "run.sh: $target: libFuzzer exited with $status and left no artifact; the end of its log:" >&2
      tail -20 "$log" >&2
      broken=1
      continue
    fi
    echo "fuzz: $target: ok, ${runs:-?} runs, ${rate:-?} exec/s, $added new inputs (not committed)"
    continue
  fi
  found=1
  echo "fuzz: $target: FOUND a problem after ${runs:-?} runs; the report:"
  grep -E 'ERROR: |SUMMARY: |Fatal error|property violated|runtime error|^  [^ ]' "$log" | head -40 || true
  for crash in $crashes; do
    minimized="$crash.min"
    # -minimize_crash keeps shrinking while the input still fails; fall back to the original if it cannot.
    "$binary" -minimize_crash=1 -max_total_time=60 -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB \
      -exact_artifact_path="$minimized" "$crash" > "$crash.minimize.log" 2>&1 || true
    [ -s "$minimized" ] || cp "$crash" "$minimized"
    sha=$(sha1sum "$minimized" | cut -c1-40)
    kept="corpus/regressions/$target-$sha"
    cp "$minimized" "$kept"
    echo "fuzz: $target: $(basename "$crash") minimized to $(wc -c < "$kept") bytes: $kept"
    echo "fuzz: $target: bytes (hex): $(od -An -v -tx1 "$kept" | tr -d ' \n' | head -c 2000)"
    echo "fuzz: $target: replay: $binary $kept"
  done
done

if [ "$KEEP" = 1 ]; then echo "fuzz: logs and new corpus entries kept in $WORK"; fi
if [ "$broken" = 1 ]; then exit 2; fi
if [ "$found" = 1 ]; then
  echo "fuzz: problems were found and stored in corpus/regressions/ (commit them with the fix)"
  exit 1
fi
