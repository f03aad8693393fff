#!/usr/bin/env bash
# Installs what the Spark example and its test need, when missing: Java 17+ (Debian's openjdk-17-jre-headless,
# with apt-get as root or through sudo) and PySpark from PyPI in a virtual environment under .build/.
#
#   .ci/spark.sh          set up; prints the environment's python on the last line; exit 1 if it cannot
#
# Used by `make spark-demo` and `make spark-test`.
set -euo pipefail
cd "$(dirname "$0")/.."

PYSPARK_VERSION=4.1.1
VENV=.build/spark-venv

say() { echo "spark.sh: $*" >&2; }

apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  say "installing $*"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}

if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
  apt_install openjdk-17-jre-headless
fi
if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ]; then
  say "Java 17 or newer is needed and could not be installed"
  exit 1
fi

if [ ! -x "$VENV/bin/python" ]; then
  mkdir -p .build
  if ! python3 -m venv "$VENV" >&2; then
    rm -rf "$VENV"
    apt_install python3-venv
    python3 -m venv "$VENV" >&2
  fi
fi
if ! "$VENV/bin/python" -c "import pyspark, sys; sys.exit(pyspark.__version__ != '$PYSPARK_VERSION')" 2>/dev/null; then
  say "installing pyspark==$PYSPARK_VERSION into $VENV (about 450 MB)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "pyspark==$PYSPARK_VERSION" >&2
fi
echo "$VENV/bin/python"
