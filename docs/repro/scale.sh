#!/usr/bin/env bash
# scale.sh WORKERS PARALLEL MINUTES : issue 19's scale simulation. A trainer
# serves a fresh Connect Four run from its embedded NATS server on loopback
# (-selfplay=false: it trains on what the workers send), WORKERS
# tabula selfplay processes with PARALLEL games each play for MINUTES and
# publish their shards, then scalecheck prints what was absorbed, the
# publish latency, the trainer's time spent taking shards in, and whether
# anything was lost or taken twice. Runs in $OUT (default /tmp/scale).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 WORKERS PARALLEL MINUTES" >&2; exit 2; }
workers=$1 parallel=$2 minutes=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/scale}
PORT=${PORT:-14333}
rm -rf "$OUT" && mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/tabula" ./cmd/tabula && go build -o "$OUT/scalecheck" ./docs/repro/scalecheck)
run=$OUT/run
"$OUT/tabula" train -game connect4 -run "$run" -selfplay=false -serve "127.0.0.1:$PORT" >"$OUT/trainer.log" 2>&1 &
trainer=$!
sleep 3
pids=()
for i in $(seq 1 "$workers"); do
  "$OUT/tabula" selfplay -nats "nats://127.0.0.1:$PORT" -run run -worker "w$i" -parallel "$parallel" \
    -time "${minutes}m" -spool "$OUT/spool/w$i" >"$OUT/w$i.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || echo "worker $p exited with $?"; done
sleep 15 # the last shards reach the trainer
kill -INT "$trainer"
wait "$trainer" || true
"$OUT/scalecheck" -run "$run" "$OUT"/spool/run-w*.jsonl
