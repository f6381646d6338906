#!/usr/bin/env bash
# xiangqi-set-curve.sh RUN [EVERY]: a Xiangqi run's checkpoints measured on
# the Xiangqi set (positions judged by Fairy-Stockfish, arena/xqset): every
# EVERY-th generation's checkpoint (default 5) and the latest, each with its
# training CPU-hours (train_cpu_s of its generation line in metrics.jsonl).
# Prints: generation, CPU-hours, best and good moves and blunders of the
# raw policy and with 64 simulations (PUCT), and the value head's
# agreement on decided positions. Fixed simulations: the machine's load does not change them.
# A run keeps its best, its evaluated and its newest checkpoints only
# (training.keep_checkpoints): train with -keep-checkpoints 0 to keep every
# generation's for this curve.
set -euo pipefail
run=$1 every=${2:-5}
TABULA=${TABULA:-/tmp/tabula}
[ -x "$TABULA" ] || (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && go build -o "$TABULA" ./cmd/tabula)
printf '%6s %7s %9s %9s %9s %9s %9s %9s %7s\n' gen cpu_h raw_best raw_good raw_blund s64_best s64_good s64_blund value
ckpts=$(ls "$run/checkpoints" | sort)
last=$(tail -1 <<<"$ckpts")
for c in $ckpts; do
  gen=$((10#$(sed 's/^g\([0-9]*\)-.*/\1/' <<<"$c")))
  [ $((gen % every)) -eq 0 ] || [ "$c" = "$last" ] || continue
  cpu=$(jq -r --argjson g "$gen" 'select(.kind == "generation" and .generation == $g) | .train_cpu_s' "$run/metrics.jsonl" | tail -1)
  out=$("$TABULA" arena -variant xiangqi -a "net:$run/checkpoints/$c,sims=64" -xiangqi-set embedded -concurrency 2 -json | tail -1)
  jq -r --arg g "$gen" --arg cpu "${cpu:-0}" '[$g, ($cpu | tonumber / 3600 * 100 | round / 100), (.moves[0] | .best_rate, .good_rate, .blunder_rate | . * 1000 | round / 10),
    (.moves[1] | .best_rate, .good_rate, .blunder_rate | . * 1000 | round / 10), (.value.agree_rate * 1000 | round / 10)] | @tsv' <<<"$out" |
    awk -F'\t' '{printf "%6s %7s %9s %9s %9s %9s %9s %9s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
done
