#!/usr/bin/env bash
# ClusterFuzzLite's (and OSS-Fuzz's) build step: every LinkParse fuzz target into $OUT, as the hosted
# service expects it: the binary $OUT/fuzz-<target>, its seeds $OUT/fuzz-<target>_seed_corpus.zip (corpus/<target>/
# and the target's crashers from corpus/regressions/), its dictionary $OUT/fuzz-<target>.dict and its libFuzzer
# options $OUT/fuzz-<target>.options.
#
# In the service's image (gcr.io/oss-fuzz-base/base-builder-swift, see Dockerfile) `precompile_swift` gives
# the compiler flags for $SANITIZER and $CFLAGS (and copies the symbolizer). It also runs on a machine with a
# Swift toolchain, where it reuses the build of Fuzz/run.sh (Fuzz/.build):
#
#   OUT=/tmp/out SRC=$PWD bash .clusterfuzzlite/build.sh
#
# Environment: OUT (required) the output directory; SRC the repository, or the directory holding it as
# linkparse/ (the image's layout; default: this script's repository); SANITIZER address (default) or coverage;
# CFLAGS extra C flags (each becomes -Xcc; the image's own CFLAGS are handled by precompile_swift).
# Exit status: 0 every target built; 1 bad environment; 2 a build failed (Fuzz/run.sh's status).
set -euo pipefail

: "${OUT:?set OUT to the directory the fuzz targets go to}"
SANITIZER=${SANITIZER:-address}
here=$(cd "$(dirname "$0")" && pwd)
repo=""
for candidate in "${SRC:-}" "${SRC:-}/linkparse" "$PWD" "$here/.."; do
  if [ -n "$candidate" ] && [ -f "$candidate/Fuzz/Package.swift" ]; then repo=$(cd "$candidate" && pwd); break; fi
done
[ -n "$repo" ] || { echo "build.sh: no LinkParse checkout in \$SRC ('${SRC:-}'), \$SRC/linkparse or $PWD" >&2; exit 1; }
cd "$repo"
mkdir -p "$OUT"

if command -v precompile_swift > /dev/null; then
  # The OSS-Fuzz image: its flags (static Swift runtime, -sanitize=fuzzer,$SANITIZER, $CFLAGS as -Xcc).
  # shellcheck disable=SC1091
  . precompile_swift
  export FUZZ_SWIFT_FLAGS="$SWIFTFLAGS"
  export FUZZ_SCRATCH_PATH="Fuzz/.build-oss-fuzz-$SANITIZER"
else
  case "$SANITIZER" in
    address)
      # Fuzz/run.sh's own flags, so its build is reused; extra C flags only when CFLAGS asks for them.
      if [ -n "${CFLAGS:-}" ]; then
        flags="-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library"
        for f in $CFLAGS; do flags="$flags -Xcc $f"; done
        export FUZZ_SWIFT_FLAGS="$flags"
        export FUZZ_SCRATCH_PATH="Fuzz/.build-cflags"
      fi ;;
    coverage)
      export FUZZ_SWIFT_FLAGS="-Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping"
      export FUZZ_SCRATCH_PATH="Fuzz/.build-coverage" ;;
    *)
      echo "build.sh: SANITIZER=$SANITIZER: Swift fuzz targets build with address (or coverage) only" >&2
      exit 1 ;;
  esac
fi

Fuzz/run.sh --build-only
bin=$(Fuzz/run.sh --bin-path)
count=0
for target in $(Fuzz/run.sh --list); do
  # A copy of the one executable under the target's name (the link run.sh made is followed): the name chooses the
  # property, and the service wants a file per target.
  cp "$bin/fuzz-$target" "$OUT/"
  cp Fuzz/linkparse.dict "$OUT/fuzz-$target.dict"
  # The limits Fuzz/run.sh uses, so the service and a local run judge an input alike.
  printf '[libfuzzer]\nmax_len = 4096\ntimeout = 10\nrss_limit_mb = 2048\n' > "$OUT/fuzz-$target.options"
  rm -f "$OUT/fuzz-${target}_seed_corpus.zip"
  # -j: flat, as the service unpacks it; the target's regressions are seeds too.
  zip -q -j "$OUT/fuzz-${target}_seed_corpus.zip" corpus/"$target"/* $(ls corpus/regressions/"$target"-* 2>/dev/null)
  echo "build.sh: $OUT/fuzz-$target ($(zipinfo -1 "$OUT/fuzz-${target}_seed_corpus.zip" | wc -l) seeds)"
  count=$((count + 1))
done
echo "build.sh: $count fuzz targets in $OUT"
