#!/usr/bin/env bash
# A local Citus cluster for CI, tests and benches: a coordinator and two workers of the installed
# PostgreSQL 15, each in a data directory of its own under $CITUS_DIR, on ports $CITUS_PORT..+2.
# The PostgreSQL 15 "main" cluster (port 5432) is never touched.
#
#   .ci/citus.sh build          build and install citus.so from the vendored source when it is missing
#   .ci/citus.sh start          initdb (first time) and start the three nodes; prints the coordinator URL
#   .ci/citus.sh createdb NAME  a database NAME on every node with the extension, the nodes registered
#   .ci/citus.sh stop           stop the nodes;  .ci/citus.sh clean  stop and delete the data directories
#
# Citus is not in Debian's archive: it is built from ../shared/vendor/citus-13.2.2.tar.gz (or
# $CITUS_TARBALL) in a temporary directory, against the server's own headers.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
CITUS_DIR=${CITUS_DIR:-/var/tmp/herd-citus}
CITUS_PORT=${CITUS_PORT:-55432}
CITUS_TARBALL=${CITUS_TARBALL:-$(realpath -m ../shared/vendor/citus-13.2.2.tar.gz)}
[ -f "$CITUS_TARBALL" ] || CITUS_TARBALL=/work/shared/vendor/citus-13.2.2.tar.gz
NODES=(coordinator worker1 worker2)
runner=$(id -un)

# initdb and postgres refuse to run as root: as root the nodes belong to the postgres user.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_of() { echo $((CITUS_PORT + $1)); }

psql_node() { # index database sql...
  local port; port=$(port_of "$1")
  as_owner "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$CITUS_DIR/run" -p "$port" -d "$2" -Atc "$3"
}

build() {
  local libdir
  if [ -x "$PG_BIN/pg_config" ] && libdir=$("$PG_BIN/pg_config" --pkglibdir) && [ -f "$libdir/citus.so" ]; then
    echo "citus.so present in $libdir"
    return
  fi
  local started=$SECONDS
  # The headers pinned to the running server's version, so installing them upgrades nothing.
  local version
  version=$(dpkg-query -W -f='${Version}' postgresql-15)
  # Another job may hold the package lock (a shared machine): wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-upgrade \
    "postgresql-server-dev-15=$version" libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev >/dev/null
  local work
  work=$(mktemp -d /var/tmp/citus-build.XXXXXX)
  tar -xzf "$CITUS_TARBALL" -C "$work" --strip-components=1
  (
    cd "$work"
    PG_CONFIG="$PG_BIN/pg_config" ./configure --quiet
    make -s -j2
    make -s install
  ) >"$work.log" 2>&1 || { tail -50 "$work.log"; exit 1; }
  rm -rf "$work" "$work.log"
  echo "citus built and installed in $((SECONDS - started)) s"
}

start() {
  [ -f "$("$PG_BIN/pg_config" --pkglibdir)/citus.so" ] || { echo "citus.so missing: run $0 build" >&2; exit 1; }
  mkdir -p "$CITUS_DIR/run"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$CITUS_DIR" "$CITUS_DIR/run"
  local i
  for i in 0 1 2; do
    local dir="$CITUS_DIR/${NODES[$i]}" port; port=$(port_of "$i")
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_owner "$PG_BIN/initdb" -D "$dir" -A trust -U postgres --no-sync >/dev/null
      cat >>"$dir/postgresql.conf" <<CONF
shared_preload_libraries = 'citus'
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$CITUS_DIR/run'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 256MB
wal_level = logical
citus.shard_count = 32
citus.max_adaptive_executor_pool_size = 4
CONF
    fi
    if ! as_owner "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as_owner "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null \
        || { echo "${NODES[$i]} (port $port) did not start:" >&2; tail -20 "$dir/server.log" >&2; exit 1; }
    fi
    # The runner connects as itself, like on the PostgreSQL cluster.
    psql_node "$i" postgres "select 1 from pg_roles where rolname = '$runner'" | grep -q 1 \
      || psql_node "$i" postgres "create role \"$runner\" superuser login"
  done
  echo "postgres://${runner}@127.0.0.1:$(port_of 0)/postgres"
}

createdb_all() {
  local name=$1 i
  for i in 0 1 2; do
    psql_node "$i" postgres "select 1 from pg_database where datname = '$name'" | grep -q 1 \
      || psql_node "$i" postgres "create database \"$name\" owner \"$runner\""
    psql_node "$i" "$name" "create extension if not exists citus"
  done
  psql_node 0 "$name" "select citus_set_coordinator_host('127.0.0.1', $(port_of 0))" >/dev/null
  for i in 1 2; do
    psql_node 0 "$name" "select citus_add_node('127.0.0.1', $(port_of "$i"))" >/dev/null
  done
  echo "postgres://${runner}@127.0.0.1:$(port_of 0)/${name}"
}

stop() {
  local i
  for i in 2 1 0; do
    local dir="$CITUS_DIR/${NODES[$i]}"
    [ -f "$dir/PG_VERSION" ] && as_owner "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
  done
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  createdb) createdb_all "${2:?database name}" ;;
  stop) stop ;;
  clean) stop; rm -rf "$CITUS_DIR" ;;
  *) echo "usage: $0 build|start|createdb NAME|stop|clean" >&2; exit 2 ;;
esac
