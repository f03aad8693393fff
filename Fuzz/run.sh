#!/usr/bin/env bash
# Builds LinkParse's libFuzzer targets and runs them on the committed corpus.
#
#   Fuzz/run.sh [--time SECONDS] [--target NAME]... [--parallel N] [--sample N] [--shared-build] [--no-build] [--keep]
#               [-- LIBFUZZER_FLAGS...]
#   Fuzz/run.sh --nightly [--time SECONDS] [--fork N | --jobs N] [--seed N] [--runs N]
#               [--max-total-time SECONDS] [--report-dir DIR] [--corpus DIR] [--target NAME]... [--no-build]
#   Fuzz/run.sh --list | --build-only | --bin-path | --help
#
#   --time SECONDS   how long each target fuzzes (default 60; 3600 with --nightly)
#   --target NAME    run only this target (repeat it, or NAME,NAME); default: every case of FuzzProperty
#   --parallel N     fuzz N targets at once, each one process unless --fork or --jobs says otherwise (the CI
#                    smoke runs two at a time on a 2-core machine; a nightly run so takes half the wall time with
#                    the same time per target); reports, merges and the table still come in target order
#   --sample N       start each target from its named (hand-written) seeds, its regressions and only N of the
#                    inputs earlier nightly runs found (the first N by name: sha1s, so a fixed random sample)
#                    instead of its whole corpus; not with --nightly. The CI smoke's bound: libFuzzer runs every
#                    starting input before -max_total_time counts, and the whole corpus (10,000 inputs) took
#                    minutes in a debug build (the regex target 3 exec/s); the nightly run starts from all of it
#   --shared-build   build into the main package's .build, debug, with only LinkParse's own modules instrumented
#                    (libFuzzer coverage and AddressSanitizer; UBSan for its C): the dependencies' debug build that
#                    `make test` made serves the fuzz executable, instead of a sanitizer build of the whole graph
#                    (CI's smoke: about 60 s instead of 330 s here). Dependencies are then neither instrumented nor
#                    checked by ASan, and the next `make test` compiles LinkParse's modules again; the default build
#                    (Fuzz/.build, everything instrumented) is the nightly run's and ClusterFuzzLite's
#   --no-build       use the binaries already built (Fuzz/.build, or .build with --shared-build)
#   --keep           keep the work directory (new inputs, logs) and print where it is
#   --nightly        fuzz, then MERGE what was found into <corpus>/<target>/ (libFuzzer -set_cover_merge=1 into a
#                    fresh directory: named seeds are kept, found inputs only if they add coverage) and write
#                    a report (report.json, report.md) of executions, exec/s, cov/ft, corpus and peak RSS
#   --fork N         libFuzzer -fork=N: N fuzzing processes per target (nightly default: the core count)
#   --jobs N         libFuzzer -jobs=N -workers=N instead of -fork
#   --seed N         libFuzzer -seed=N (with --jobs 1, one process, and --runs, a run repeats exactly; with
#                    several processes it fixes where they start, not how far they get)
#   --runs N         stop each target after N executions (libFuzzer -runs=N), whichever comes first
#   --max-total-time SECONDS   bound the fuzzing time of the whole run: each target gets at most its share
#                    of what is left (merging and minimizing come on top)
#   --report-dir DIR where --nightly writes its report (default Fuzz/.build/nightly-<UTC date and time>)
#   --corpus DIR     the corpus root: seeds in DIR/<target>/, crashers in DIR/regressions/ (default corpus)
#   --list           print the target names and exit
#   --build-only     build the targets and exit; --bin-path prints the directory of the binaries
#   -- FLAGS         passed to libFuzzer as they are (e.g. -- -use_value_profile=1)
#
# Environment: FUZZ_SWIFT_FLAGS replaces the sanitizer flags of the build (.clusterfuzzlite/build.sh passes
# the OSS-Fuzz image's), FUZZ_SCRATCH_PATH the build directory (default Fuzz/.build), FUZZ_CONFIGURATION the
# build configuration (default release; debug compiles about twice as fast and fuzzes slower: the CI smoke).
#
# Without --nightly, each target reads its seeds from <corpus>/<target>/ and writes what it finds to a temporary
# directory, never into the committed corpus. In both modes a crash, a sanitizer report (leaks included), an
# invariant violation, a timeout or running out of memory is minimized and stored as
# <corpus>/regressions/<target>-<sha1> (which the unit tests replay) and its bytes are printed in hex.
#
# Exit status: 0 every target ran clean; 1 a problem was found and stored in <corpus>/regressions/ (reported
# once every target has run); 2 bad arguments, the build failed, a fuzzer could not run or a merge failed.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_PER_TARGET=""
ONLY=()
BUILD=1
KEEP=0
NIGHTLY=0
FORK=""
JOBS=""
SEED=""
RUNS=""
MAX_TOTAL=""
REPORT_DIR=""
AT_ONCE=1
SAMPLE=""
SHARED=0
CORPUS=corpus
ACTION=fuzz
EXTRA=()

die() { echo "run.sh: $*" >&2; exit 2; }
number() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1 needs a whole number, not '$2'"; }

# The targets: the cases of FuzzProperty (Fuzz/Sources/FuzzSupport/FuzzProperty.swift), in its order. One
# executable, fuzz-linkparse, serves them all under the names fuzz-<target> (links made after the build).
ALL_TARGETS=()
while read -r name; do ALL_TARGETS+=("$name"); done < <(
  awk '/^public enum FuzzProperty/ { on = 1 } on && /^  case [a-z]+$/ { print $2 } on && /^  \/\/\/ Runs/ { exit }' \
    Fuzz/Sources/FuzzSupport/FuzzProperty.swift)
[ ${#ALL_TARGETS[@]} -gt 0 ] || die "no case found in FuzzProperty (Fuzz/Sources/FuzzSupport/FuzzProperty.swift)"

while [ $# -gt 0 ]; do
  case "$1" in
    --time) number "$1" "${2-}"; SECONDS_PER_TARGET="$2"; shift 2 ;;
    --target) [ -n "${2-}" ] || die "--target needs a name"; IFS=, read -ra names <<< "$2"; ONLY+=("${names[@]}"); shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --keep) KEEP=1; shift ;;
    --parallel) number "$1" "${2-}"; AT_ONCE=$(( $2 > 0 ? $2 : 1 )); shift 2 ;;
    --sample) number "$1" "${2-}"; SAMPLE="$2"; shift 2 ;;
    --shared-build) SHARED=1; shift ;;
    --nightly) NIGHTLY=1; shift ;;
    --fork) number "$1" "${2-}"; FORK="$2"; shift 2 ;;
    --jobs) number "$1" "${2-}"; JOBS="$2"; shift 2 ;;
    --seed) number "$1" "${2-}"; SEED="$2"; shift 2 ;;
    --runs) number "$1" "${2-}"; RUNS="$2"; shift 2 ;;
    --max-total-time) number "$1" "${2-}"; MAX_TOTAL="$2"; shift 2 ;;
    --report-dir) [ -n "${2-}" ] || die "--report-dir needs a directory"; REPORT_DIR="$2"; shift 2 ;;
    --corpus) [ -d "${2-}" ] || die "--corpus: '${2-}' is not a directory"; CORPUS="$2"; shift 2 ;;
    --list) printf '%s\n' "${ALL_TARGETS[@]}"; exit 0 ;;
    --build-only) ACTION=build; shift ;;
    --bin-path) ACTION=bin-path; BUILD=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
done
[ -z "$FORK" ] || [ -z "$JOBS" ] || die "--fork and --jobs exclude each other"
[ "$AT_ONCE" = 1 ] || [ -z "$MAX_TOTAL" ] || die "--parallel and --max-total-time exclude each other"
[ "$NIGHTLY" = 0 ] || [ -z "$SAMPLE" ] || die "--sample is for short runs: --nightly starts from the whole corpus"
if [ -z "$SECONDS_PER_TARGET" ]; then
  if [ "$NIGHTLY" = 1 ]; then SECONDS_PER_TARGET=3600; else SECONDS_PER_TARGET=60; fi
fi
if [ "$NIGHTLY" = 1 ] && [ "$AT_ONCE" = 1 ] && [ -z "$FORK" ] && [ -z "$JOBS" ]; then FORK=$(nproc 2>/dev/null || echo 1); fi
CORPUS=$(cd "$CORPUS" && pwd)

TARGETS=()
if [ ${#ONLY[@]} -gt 0 ]; then
  for name in "${ONLY[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $name "* ]] || die "no target '$name'; targets: ${ALL_TARGETS[*]}"
    TARGETS+=("$name")
  done
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
if [ -n "${FUZZ_SWIFT_FLAGS:-}" ]; then read -ra SANITIZE <<< "$FUZZ_SWIFT_FLAGS"; fi
CONFIGURATION=${FUZZ_CONFIGURATION:-release}
[[ "$CONFIGURATION" =~ ^(debug|release)$ ]] || die "FUZZ_CONFIGURATION is debug or release, not '$CONFIGURATION'"
BUILD_ARGS=(--package-path Fuzz --scratch-path "${FUZZ_SCRATCH_PATH:-Fuzz/.build}" -c "$CONFIGURATION" "${SANITIZE[@]}")
if [ "$SHARED" = 1 ]; then
  # The manifests (Package.swift, Fuzz/Package.swift) add the sanitizer flags to LinkParse's and the fuzz
  # package's own targets when this is set; the dependencies keep the flags of `make test`'s debug build.
  export LINKPARSE_FUZZ_INSTRUMENTATION=1
  CONFIGURATION=debug
  SANITIZE=()
  BUILD_ARGS=(--package-path Fuzz --scratch-path "$ROOT/.build" -c debug)
fi
if [ "$BUILD" = 1 ]; then
  if [ "$SHARED" = 1 ]; then how="debug, in .build, LinkParse's own modules instrumented"; else
    how="$CONFIGURATION, ${SANITIZE[*]}"; fi
  echo "== fuzz: building fuzz-linkparse for ${TARGETS[*]} ($how)"
  build_started=$(date +%s)
  # The one product: a plain `swift build` would also build the parent's `linkparse` executable, whose
  # top-level code -parse-as-library rejects. (ld.gold's "Cannot export local symbol '__asan_…'" warnings are
  # noise of the ASan runtime: filtered.)
  set +e
  swift build "${BUILD_ARGS[@]}" --product fuzz-linkparse 2>&1 | grep --line-buffered -v "Cannot export local symbol"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" = 0 ] || die "building fuzz-linkparse failed"
  echo "== fuzz: built in $(( $(date +%s) - build_started )) s"
fi
BIN_DIR=$(swift build "${BUILD_ARGS[@]}" --show-bin-path)
if [ "$ACTION" != bin-path ]; then
  [ -x "$BIN_DIR/fuzz-linkparse" ] || die "$BIN_DIR/fuzz-linkparse is not built (run without --no-build)"
  # Each target's name for the one executable (its name chooses the property; see Sources/FuzzDriver).
  for target in "${ALL_TARGETS[@]}"; do ln -sfn fuzz-linkparse "$BIN_DIR/fuzz-$target"; done
fi
case "$ACTION" in
  bin-path) echo "$BIN_DIR"; exit 0 ;;
  build) exit 0 ;;
esac

# Swift's backtracer symbolicates a crashing target for minutes (and holds libFuzzer's output pipe meanwhile);
# the sanitizer's own stack trace is in the log.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
DICT="$ROOT/Fuzz/linkparse.dict"
MAX_LEN=4096
TIMEOUT=10
RSS_MB=2048
WORK=$(mktemp -d "${TMPDIR:-/tmp}/linkparse-fuzz.XXXXXX")
if [ "$KEEP" = 0 ]; then trap 'rm -rf "$WORK"' EXIT; fi
REGRESSIONS="$CORPUS/regressions"
mkdir -p "$REGRESSIONS"
if [ "$NIGHTLY" = 1 ]; then
  REPORT_DIR=${REPORT_DIR:-Fuzz/.build/nightly-$(date -u +%Y%m%d-%H%M%S)}
  mkdir -p "$REPORT_DIR"
  REPORT_DIR=$(cd "$REPORT_DIR" && pwd)
fi
# Peak RSS of the fuzzer and every process it starts (-fork and -jobs children), when GNU time is there.
MEASURE=()
if [ -x /usr/bin/time ]; then MEASURE=(/usr/bin/time -f 'peak-rss-kb %M' -o); fi

# The coverage of a corpus directory: "cov ft" from running each of its inputs once (libFuzzer's INITED line).
corpus_coverage() {
  local line
  line=$("$1" -runs=0 -max_len=$MAX_LEN -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB "$2" 2>&1 | grep -m1 'INITED cov:' || true)
  echo "$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$line") $(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$line")"
}

# Whether the corpus file $1 is an input a run found (named by its sha1), not a named (hand-written) seed.
found_input() { [[ "$(basename "$1")" =~ ^[0-9a-f]{40}$ ]]; }

# Merges the inputs a nightly run found into its committed corpus: a fresh directory starts with the named
# (hand-written) seeds, which are always kept; libFuzzer adds the sha1-named inputs from the old corpus and the
# new ones only when they add features; the fresh directory then replaces <corpus>/<target>/.
# -set_cover_merge=1 is -merge=1 (same control file, crash-resistant, the first directory's inputs kept) with a
# set cover instead of a greedy pass: for the same features it kept 272 of params' inputs where -merge=1 kept 447.
merge_corpus() {
  local binary=$1 seeds=$2 new=$3 dir=$4 file
  local fresh="$dir/merged" candidates="$dir/candidates"
  mkdir -p "$fresh" "$candidates"
  for file in "$seeds"/*; do
    [ -f "$file" ] || continue
    if found_input "$file"; then cp "$file" "$candidates/"; else cp "$file" "$fresh/"; fi
  done
  "$binary" -set_cover_merge=1 -max_len=$MAX_LEN -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB \
    "$fresh" "$candidates" "$new" > "$dir/merge.log" 2>&1 || return 1
  # Swap in the merged directory next to the old one, so a failure leaves one or the other whole.
  rm -rf "$seeds.new" "$seeds.old"
  cp -R "$fresh" "$seeds.new"
  mv "$seeds" "$seeds.old" && mv "$seeds.new" "$seeds" && rm -rf "$seeds.old"
}

# Minimizes each artifact in $1 (a directory) for target $2 into <corpus>/regressions/.
store_regressions() {
  local artifacts=$1 target=$2 binary=$3 crash minimized sha kept
  for crash in $(find "$artifacts" -type f ! -name '*.min' ! -name '*.log' | sort); do
    minimized="$crash.min"
    # -minimize_crash keeps shrinking while the input still fails; fall back to the original if it cannot.
    "$binary" -minimize_crash=1 -max_total_time=60 -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB \
      -exact_artifact_path="$minimized" "$crash" > "$crash.minimize.log" 2>&1 || true
    [ -s "$minimized" ] || cp "$crash" "$minimized"
    sha=$(sha1sum "$minimized" | cut -c1-40)
    kept="$REGRESSIONS/$target-$sha"
    cp "$minimized" "$kept"
    echo "fuzz: $target: $(basename "$crash") minimized to $(wc -c < "$kept") bytes: $kept"
    echo "fuzz: $target: bytes (hex): $(od -An -v -tx1 "$kept" | tr -d ' \n' | head -c 2000)"
    echo "fuzz: $target: replay: $binary $kept"
  done
}

# How many artifacts of a kind (crash, leak, timeout, oom, slow-unit) libFuzzer left in directory $2.
count() { find "$2" -type f -name "$1-*" ! -name '*.min' ! -name '*.log' | wc -l; }

PARALLEL=()
if [ -n "$FORK" ] && [ "$FORK" -gt 0 ]; then PARALLEL=(-fork="$FORK"); fi
if [ -n "$JOBS" ] && [ "$JOBS" -gt 1 ]; then PARALLEL=(-jobs="$JOBS" -workers="$JOBS"); fi
[ -z "$SEED" ] || PARALLEL+=(-seed="$SEED")
[ -z "$RUNS" ] || PARALLEL+=(-runs="$RUNS")

found=0
broken=0
fuzzed=0
ROWS=()
JSON_ROWS=()

# Fuzzes target number $1 (of TARGETS) into its work directory: the fuzzer's log, its exit status and how long it
# ran are left there for evaluate(). The seconds of a --max-total-time run are its share of what is left.
launch() {
  local index=$1 target=${TARGETS[$1]} seconds=$SECONDS_PER_TARGET share started status=0
  local binary="$BIN_DIR/fuzz-$target" seeds="$CORPUS/$target" dir="$WORK/$target"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$seeds"
  if [ ! -x "$binary" ]; then echo missing > "$dir/status"; return; fi
  if [ -n "$MAX_TOTAL" ]; then
    share=$(( (MAX_TOTAL - fuzzed) / (${#TARGETS[@]} - index) ))
    [ "$share" -ge "$seconds" ] || seconds=$(( share > 1 ? share : 1 ))
  fi
  ls "$seeds" | wc -l > "$dir/before"
  local from="$seeds" described="$(cat "$dir/before") seeds"
  if [ -n "$SAMPLE" ]; then
    # The named seeds, this target's regressions and the first SAMPLE found (sha1-named) inputs, copied.
    from="$dir/sample"
    mkdir -p "$from"
    local file found=0
    for file in "$seeds"/* "$REGRESSIONS/$target"-*; do
      [ -f "$file" ] || continue
      if [[ "$file" == "$seeds"/* ]] && found_input "$file"; then
        [ "$found" -lt "$SAMPLE" ] || continue
        found=$(( found + 1 ))
      fi
      cp "$file" "$from/"
    done
    described="$(ls "$from" | wc -l) of $(cat "$dir/before") seeds (named, regressions, $SAMPLE found)"
  fi
  if [ "$NIGHTLY" = 1 ]; then corpus_coverage "$binary" "$seeds" > "$dir/coverage-before"; fi
  echo "== fuzz: $target for ${seconds} s (${described}${PARALLEL:+; ${PARALLEL[*]}})"
  started=$(date +%s)
  # The first directory receives new inputs; the committed seeds are only read. -jobs writes fuzz-<n>.log
  # into the working directory: the target's work directory.
  (cd "$dir" && ${MEASURE[@]+"${MEASURE[@]}" "$dir/time.txt"} "$binary" -dict="$DICT" -max_len=$MAX_LEN \
    -timeout=$TIMEOUT -rss_limit_mb=$RSS_MB -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts/" ${PARALLEL[@]+"${PARALLEL[@]}"} ${EXTRA[@]+"${EXTRA[@]}"} "$dir/corpus" "$from") \
    > "$dir/fuzz.log" 2>&1 || status=$?
  echo "$status" > "$dir/status"
  echo $(( $(date +%s) - started )) > "$dir/elapsed"
}

# Reads what launch() left for target number $1: reports it, stores its findings in <corpus>/regressions/ and,
# with --nightly, merges its new inputs into <corpus>/<target>/ and adds its row to the report.
evaluate() {
  local target=${TARGETS[$1]}
  local binary="$BIN_DIR/fuzz-$target" seeds="$CORPUS/$target" dir="$WORK/$target"
  local new="$dir/corpus" artifacts="$dir/artifacts" log="$dir/fuzz.log"
  local status elapsed before runs rate rss_kb rss crashes leaks timeouts ooms slow problems outcome
  local cov_before="" ft_before="" cov_after ft_after after
  status=$(cat "$dir/status")
  if [ "$status" = missing ]; then
    echo "run.sh: $binary is missing (build with Fuzz/run.sh, without --no-build)" >&2
    broken=1
    return
  fi
  elapsed=$(cat "$dir/elapsed"); before=$(cat "$dir/before")
  if [ -f "$dir/coverage-before" ]; then read -r cov_before ft_before < "$dir/coverage-before"; fi
  fuzzed=$(( fuzzed + elapsed ))
  # Executions: -fork's parent prints "#<total>: cov: …" lines; a plain run or every -jobs worker prints
  # stat::number_of_executed_units (summed).
  runs=$(sed -n 's/^#\([0-9]*\): cov: .*/\1/p' "$log" | tail -1)
  if [ -z "$runs" ]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ s += $1 } END { print s + 0 }')
  fi
  rate=$(( runs / (elapsed > 0 ? elapsed : 1) ))
  rss_kb=$(sed -n 's/^peak-rss-kb //p' "$dir/time.txt" 2>/dev/null | tail -1)
  if [ -n "$rss_kb" ]; then rss=$(( rss_kb / 1024 )); else
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | sort -n | tail -1); fi
  crashes=$(count crash "$artifacts"); leaks=$(count leak "$artifacts"); timeouts=$(count timeout "$artifacts")
  ooms=$(count oom "$artifacts"); slow=$(count slow-unit "$artifacts")
  problems=$(( crashes + leaks + timeouts + ooms + slow ))
  outcome=ok
  if [ "$problems" = 0 ] && [ "$status" != 0 ]; then
    echo "run.sh: $target: libFuzzer exited with $status and left no artifact; the end of its log:" >&2
    tail -20 "$log" >&2
    broken=1
    outcome=broken
  elif [ "$problems" -gt 0 ]; then
    found=1
    outcome=found
    echo "fuzz: $target: FOUND a problem after ${runs} runs; the report:"
    grep -E 'ERROR: |SUMMARY: |Fatal error|property violated|runtime error|^  [^ ]' "$log" | grep -v NEW_FUNC | head -40 || true
    store_regressions "$artifacts" "$target" "$binary"
  fi
  if [ "$NIGHTLY" = 0 ]; then
    [ "$outcome" != ok ] || echo "fuzz: $target: ok, ${runs} runs, ${rate} exec/s, $(ls "$new" | wc -l) new inputs (not committed)"
    return
  fi
  cov_after=$cov_before; ft_after=$ft_before
  if [ "$outcome" != broken ]; then
    if merge_corpus "$binary" "$seeds" "$new" "$dir"; then
      read -r cov_after ft_after <<< "$(corpus_coverage "$binary" "$seeds")"
    else
      echo "run.sh: $target: merging into $seeds failed (the corpus is unchanged); the end of the log:" >&2
      tail -20 "$dir/merge.log" >&2
      broken=1
      outcome=broken
    fi
  fi
  after=$(ls "$seeds" | wc -l)
  mkdir -p "$REPORT_DIR/$target"
  cp "$dir"/*.log "$REPORT_DIR/$target/"
  echo "fuzz: $target: $outcome, $runs runs, $rate exec/s, cov $cov_before → $cov_after, ft $ft_before → $ft_after, corpus $before → $after files"
  ROWS+=("| $target | $outcome | $elapsed | $runs | $rate | $cov_before → $cov_after | $ft_before → $ft_after | $before → $after | ${rss:-?} | $crashes / $leaks / $timeouts / $ooms |")
  JSON_ROWS+=("$(printf '{"target":"%s","outcome":"%s","seconds":%d,"executions":%d,"exec_per_sec":%d,"cov_before":%s,"cov_after":%s,"ft_before":%s,"ft_after":%s,"corpus_before":%d,"corpus_after":%d,"peak_rss_mb":%s,"crashes":%d,"leaks":%d,"timeouts":%d,"ooms":%d,"slow_units":%d}' \
    "$target" "$outcome" "$elapsed" "$runs" "$rate" "${cov_before:-null}" "${cov_after:-null}" "${ft_before:-null}" \
    "${ft_after:-null}" "$before" "$after" "${rss:-null}" "$crashes" "$leaks" "$timeouts" "$ooms" "$slow")")
}

if [ "$AT_ONCE" -gt 1 ]; then
  # --parallel: AT_ONCE fuzzers at a time, then every target evaluated (and, nightly, merged) in order.
  for index in "${!TARGETS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$AT_ONCE" ]; do wait -n || true; done
    launch "$index" &
  done
  wait
  for index in "${!TARGETS[@]}"; do evaluate "$index"; done
else
  for index in "${!TARGETS[@]}"; do launch "$index"; evaluate "$index"; done
fi

if [ "$NIGHTLY" = 1 ]; then
  parallel="${PARALLEL[*]:-one process} per target"
  [ "$AT_ONCE" = 1 ] || parallel="$parallel, $AT_ONCE targets at once"
  {
    echo "Nightly fuzzing, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'): $SECONDS_PER_TARGET s per target${MAX_TOTAL:+ (at most $MAX_TOTAL s in all)}, $parallel"
    echo
    echo "| target | outcome | seconds | executions | exec/s | cov | ft | corpus files | peak RSS (MB) | crashes / leaks / timeouts / ooms |"
    echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"
    printf '%s\n' ${ROWS[@]+"${ROWS[@]}"}
  } > "$REPORT_DIR/report.md"
  {
    printf '{"date":"%s","commit":"%s","seconds_per_target":%d,"max_total_time":%s,"libfuzzer_flags":"%s","targets":[\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git rev-parse HEAD 2>/dev/null || echo unknown)" "$SECONDS_PER_TARGET" \
      "${MAX_TOTAL:-null}" "${PARALLEL[*]:-}"
    if [ ${#JSON_ROWS[@]} -gt 0 ]; then (IFS=$'\n'; sed '$!s/$/,/' <<< "${JSON_ROWS[*]}"); fi
    printf ']}\n'
  } > "$REPORT_DIR/report.json"
  echo
  cat "$REPORT_DIR/report.md"
  echo
  echo "fuzz: report: $REPORT_DIR/report.md and report.json (logs per target beside them)"
  if [[ "$CORPUS" == "$ROOT"/* ]] && [ -n "$(git status --porcelain -- "$CORPUS" 2>/dev/null)" ]; then
    echo "fuzz: the merged corpus changed: review and commit it (git status ${CORPUS#"$ROOT"/})"
  fi
fi
if [ "$KEEP" = 1 ]; then echo "fuzz: logs and new corpus entries kept in $WORK"; fi
if [ "$broken" = 1 ]; then exit 2; fi
if [ "$found" = 1 ]; then
  echo "fuzz: problems were found and stored in $REGRESSIONS/ (commit them with the fix)"
  exit 1
fi
