#!/usr/bin/env bash
# A throwaway PostgreSQL for the fleet tests and demo: its own cluster in a folder, reachable only
# on a Unix socket in that folder (no TCP), trust authentication, gone after `stop`.
#
# PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user (Debian's
# postgresql package creates it) and runs through runuser; as anyone else it runs as that user.
#
# Usage:
#   Scripts/postgres-throwaway.sh start DIR   initdb in DIR/data, start, create database `cardflow`;
#                                             prints the socket folder (DIR). The fleet's tables come
#                                             from `cardctl fleet init` or cardd at start. As root,
#                                             DIR's parent folders must be searchable by `postgres`.
#   Scripts/postgres-throwaway.sh stop DIR    stop the server (fast) and delete DIR
#   Scripts/postgres-throwaway.sh pause DIR   stop the server but keep its data (tests: "server down")
#   Scripts/postgres-throwaway.sh resume DIR  start it again (if it is not running)
#   Scripts/postgres-throwaway.sh standby DIR PRIMARY_DIR
#                                             a streaming-replication standby of the server in
#                                             PRIMARY_DIR (pg_basebackup over its socket), started in
#                                             DIR; the primary then waits for it on every commit
#                                             (synchronous_standby_names), so a promoted standby has
#                                             every transaction a client was told was committed
#   Scripts/postgres-throwaway.sh crash DIR   stop the server at once (immediate), keeping its data
#   Scripts/postgres-throwaway.sh promote DIR make a standby the primary (pg_ctl promote, waits)
#   Scripts/postgres-throwaway.sh start-small DIR MB
#                                             as start, on a tmpfs of MB megabytes mounted at DIR
#                                             (root only), so a test can fill the server's disk
#   Scripts/postgres-throwaway.sh fill DIR    fill that file system (DIR/filler) until no byte is left
#   Scripts/postgres-throwaway.sh unfill DIR  delete DIR/filler: the space returns
#   Scripts/postgres-throwaway.sh proxy DIR SERVER_DIR
#                                             a relay (Scripts/partition-proxy.py) with its socket in
#                                             DIR to the server in SERVER_DIR: clients of DIR reach
#                                             the server through a link the test can cut
#   Scripts/postgres-throwaway.sh cut DIR     cut that link (a partition: nothing passes, nothing closes)
#   Scripts/postgres-throwaway.sh heal DIR    heal it (what was queued passes now)
# Clients: postgresql:///cardflow?host=DIR&user=postgres (cardd's fleet.postgres, cardctl fleet --postgres).
# POSTGRES_THROWAWAY_OPTIONS: more server options for start and resume (the fleet benchmark loads
# pg_stat_statements with "-c shared_preload_libraries=pg_stat_statements").
# Exit status: 0 done, 2 PostgreSQL is not installed or would not start.
set -euo pipefail

command_name=${1:-}
dir=${2:-}
if [[ -z "$command_name" || -z "$dir" ]]; then
  sed -n '2,35p' "$0" >&2
  exit 2
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [[ -z "$pgbin" || ! -x "$pgbin/initdb" ]]; then
  echo "postgres-throwaway: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 2
fi

as_owner() {
  if [[ "$(id -u)" -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_server() {
  if ! as_owner "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -c listen_addresses='' -c max_connections=200 -c fsync=off ${POSTGRES_THROWAWAY_OPTIONS:-}" start >/dev/null; then
    echo "postgres-throwaway: the server did not start; its log:" >&2
    cat "$dir/server.log" >&2 || true
    exit 2
  fi
}

case "$command_name" in
  start | start-small)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ "$command_name" == start-small ]]; then
      size=${3:-}
      [[ "$size" =~ ^[0-9]+$ ]] || { echo "postgres-throwaway: start-small DIR MB" >&2; exit 2; }
      if ! mount -t tmpfs -o "size=${size}m" tmpfs "$dir"; then
        echo "postgres-throwaway: cannot mount a ${size} MB tmpfs at $dir (needs root and mount rights)" >&2
        exit 2
      fi
    fi
    if [[ "$(id -u)" -eq 0 ]]; then
      id postgres >/dev/null 2>&1 || { echo "postgres-throwaway: no 'postgres' user to run the server as" >&2; exit 2; }
      chown postgres "$dir"
      # The socket folder must be reachable for the postgres user up the whole path.
      chmod 755 "$dir"
    fi
    as_owner "$pgbin/initdb" -D "$dir/data" -A trust -U postgres --no-sync >/dev/null
    start_server
    as_owner "$pgbin/createdb" -h "$dir" -U postgres cardflow
    echo "$dir"
    ;;
  stop)
    if [[ -f "$dir/proxy.pid" ]]; then
      kill "$(cat "$dir/proxy.pid")" 2>/dev/null || true
    fi
    if [[ -d "$dir/data" ]]; then
      as_owner "$pgbin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    if mountpoint -q "$dir" 2>/dev/null; then
      umount "$dir" || umount -l "$dir"
    fi
    rm -rf "$dir"
    ;;
  pause)
    as_owner "$pgbin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    # A server that stopped itself (a PANIC on a full disk) or was paused; one still up stays up.
    if ! as_owner "$pgbin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
      start_server
    fi
    ;;
  standby)
    primary=${3:-}
    [[ -n "$primary" && -d "$primary/data" ]] || { echo "postgres-throwaway: standby DIR PRIMARY_DIR" >&2; exit 2; }
    primary=$(cd "$primary" && pwd)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ "$(id -u)" -eq 0 ]]; then
      chown postgres "$dir"
      chmod 755 "$dir"
    fi
    # initdb's trust rules include local replication connections; -R writes primary_conninfo.
    as_owner "$pgbin/pg_basebackup" -h "$primary" -U postgres -D "$dir/data" -R -X stream --no-sync \
      -c fast >/dev/null
    start_server
    as_owner "$pgbin/psql" -h "$primary" -U postgres -X -q -c "ALTER SYSTEM SET synchronous_standby_names = '*'" \
      -c "SELECT pg_reload_conf()" >/dev/null
    # Synchronous once the primary reports the standby as such.
    for _ in $(seq 1 300); do
      state=$(as_owner "$pgbin/psql" -h "$primary" -U postgres -X -A -t \
        -c "SELECT sync_state FROM pg_stat_replication LIMIT 1" 2>/dev/null || true)
      [[ "$state" == "sync" ]] && break
      sleep 0.1
    done
    [[ "$state" == "sync" ]] || { echo "postgres-throwaway: the standby did not become synchronous" >&2; exit 2; }
    echo "$dir"
    ;;
  crash)
    as_owner "$pgbin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
  promote)
    as_owner "$pgbin/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null
    ;;
  fill)
    # dd stops at ENOSPC (exit 1): that is the point.
    dd if=/dev/zero of="$dir/filler" bs=64k status=none 2>/dev/null || true
    sync
    ;;
  unfill)
    rm -f "$dir/filler"
    ;;
  proxy)
    server=${3:-}
    [[ -n "$server" && -S "$server/.s.PGSQL.5432" ]] || { echo "postgres-throwaway: proxy DIR SERVER_DIR (a running server)" >&2; exit 2; }
    mkdir -p "$dir"
    chmod 755 "$dir"
    nohup python3 "$(dirname "$0")/partition-proxy.py" "$dir/.s.PGSQL.5432" "$server/.s.PGSQL.5432" \
      >"$dir/proxy.log" 2>&1 </dev/null &
    echo $! >"$dir/proxy.pid"
    for _ in $(seq 1 100); do
      [[ -S "$dir/.s.PGSQL.5432" ]] && break
      sleep 0.05
    done
    [[ -S "$dir/.s.PGSQL.5432" ]] || { echo "postgres-throwaway: the relay did not start: $(cat "$dir/proxy.log")" >&2; exit 2; }
    echo "$dir"
    ;;
  cut)
    kill -USR1 "$(cat "$dir/proxy.pid")"
    ;;
  heal)
    kill -USR2 "$(cat "$dir/proxy.pid")"
    ;;
  *)
    echo "postgres-throwaway: unknown command '$command_name' (start, start-small, stop, pause, resume, standby, crash, promote, fill, unfill, proxy, cut, heal)" >&2
    exit 2
    ;;
esac
