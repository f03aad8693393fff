#!/usr/bin/env bash
# A throw-away PostgreSQL server for LinkParsePostgres's tests, on 127.0.0.1.
#   .ci/postgres.sh start   install PostgreSQL if missing (apt-get), initdb, start, create linkparse_test
#                           (and linkparse_server_test, linkparse_example_test)
#   .ci/postgres.sh url     print the database URL (LINKPARSE_TEST_DATABASE_URL)
#   .ci/postgres.sh stop    stop the server and delete its data
# State lives in $LINKPARSE_PG_DIR (default: a folder under ${TMPDIR:-/tmp}); the port is the first free
# one from $LINKPARSE_PG_PORT (default 55432). PostgreSQL refuses to run as root, so as root the server runs
# as the `postgres` user (created by the package).
set -euo pipefail
DIR="${LINKPARSE_PG_DIR:-${TMPDIR:-/tmp}/linkparse-postgres}"
DB=linkparse_test

bindir() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  done
  return 1
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

url() {
  [ -f "$DIR/port" ] || { echo "postgres.sh: not started ($DIR/port missing)" >&2; exit 1; }
  # The test server has no TLS: said so (a URL without sslmode requires verified TLS).
  echo "postgres://postgres@127.0.0.1:$(cat "$DIR/port")/$DB?sslmode=disable"
}

start() {
  local bin
  if ! bin=$(bindir); then
    echo "postgres.sh: installing postgresql (apt-get)"
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
    bin=$(bindir)
  fi
  if [ -f "$DIR/data/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    echo "postgres.sh: already running: $(url)"
    return 0
  fi
  rm -rf "$DIR"
  mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR"
  local port="${LINKPARSE_PG_PORT:-55432}"
  while port_in_use "$port"; do port=$((port + 1)); done
  echo "$port" >"$DIR/port.tmp" && mv "$DIR/port.tmp" "$DIR/port"
  as_owner "$bin/initdb" -D "$DIR/data" -U postgres --auth=trust -E UTF8 --no-sync >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$DIR -c fsync=off -c max_connections=100" \
    start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DB"
  # One database per test suite that empties its table, so suites running at once do not meet.
  for extra in linkparse_server_test linkparse_example_test linkparse_store_contract; do
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$extra"
  done
  echo "postgres.sh: started: LINKPARSE_TEST_DATABASE_URL=$(url)"
}

stop() {
  local bin
  if bin=$(bindir) && [ -d "$DIR/data" ]; then
    as_owner "$bin/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$DIR"
  echo "postgres.sh: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
