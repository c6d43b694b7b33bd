#!/usr/bin/env bash
# What TLS costs Spool: the same produce and consume runs against a local 3-node cluster with
# plaintext listeners, with TLS on the Spool listener (clients and replication; fetch answers are
# copied through the TLS engine there instead of sent with sendfile) on the default engine
# (ssl.engine=openssl), and with TLS on the JDK's engine (ssl.engine=jdk). Keys are made with the
# JDK's keytool into scratch space for the run and never kept.
#
#   scripts/bench-tls.sh            # RECORDS=1000000 RECORD_SIZE=1024 by default
#   MODES="plaintext tls" scripts/bench-tls.sh   # a subset of: plaintext tls tls-jdk
#
# Holds the machine lock itself (flock /tmp/spool-heavy.lock) and stops the clusters it started.
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
RECORDS="${RECORDS:-1000000}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
MODES="${MODES:-plaintext tls tls-jdk}"
PASS=spool-bench-pass

if [ -z "${SPOOL_BENCH_LOCKED:-}" ]; then
  exec env SPOOL_BENCH_LOCKED=1 flock /tmp/spool-heavy.lock "$0" "$@"
fi
ensure_package
WORK="$RESULTS/tls"
rm -rf "$WORK" && mkdir -p "$WORK/keys"
make_tls_keys "$WORK/keys" "$PASS"
SSL_KEYS="$(tls_key_props "$WORK/keys" "$PASS")"

run() { # MODE: plaintext | tls (the default engine, OpenSSL) | tls-jdk (ssl.engine=jdk)
  local mode="$1" dir="$WORK/cluster-$1" props=() node_props="" keys="$SSL_KEYS" client_props=""
  case "$mode" in
    plaintext) ;;
    tls) ;;
    tls-jdk) keys="$SSL_KEYS
ssl.engine=jdk" ;;
    *) echo "unknown mode '$mode' in MODES (plaintext, tls, tls-jdk)" >&2; exit 2 ;;
  esac
  if [ "$mode" != plaintext ]; then
    node_props="listener.security.protocol.map=SPOOL:SSL
$keys"
    props=(--producer-prop security.protocol=SSL)
    while IFS= read -r kv; do props+=(--producer-prop "$kv"); done <<<"$keys"
    client_props="security.protocol=SSL
$keys"
  fi
  SPOOL_METRICS=0 SPOOL_NODE_PROPS="$node_props" SPOOL_CLIENT_PROPS="$client_props" "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$dir" --base-port 29092 >&2
  trap '"$ROOT/scripts/cluster.sh" stop --dir "'"$dir"'" >&2 || true' EXIT
  local b=127.0.0.1:29092 admin=("${props[@]//--producer-prop/--admin-prop}") consumer=("${props[@]//--producer-prop/--consumer-prop}")
  "$ROOT/scripts/spool" topic create bench-tls --partitions 6 --replication-factor 3 -b "$b" "${admin[@]}" >&2
  echo "== $mode: produce $RECORDS x $RECORD_SIZE B, acks=all, rf=3"
  "$ROOT/scripts/spool" perf produce -b "$b" --topic bench-tls --num-records "$RECORDS" --record-size "$RECORD_SIZE" \
    --throughput -1 "${props[@]}" 2>/dev/null | tail -1
  echo "== $mode: consume $RECORDS"
  "$ROOT/scripts/spool" perf consume -b "$b" --topic bench-tls --messages "$RECORDS" "${consumer[@]}" 2>/dev/null | tail -2
  "$ROOT/scripts/cluster.sh" stop --dir "$dir" >&2
  trap - EXIT
}
for m in $MODES; do run "$m"; done
