#!/usr/bin/env bash
# learning.sh GAME MINUTES SEED... : the learning benchmark. Trains GAME's
# preset from scratch for MINUTES of training time once per SEED (runs in
# $OUT/GAME-MINUTESm-sSEED, default OUT=/tmp/learning), one run after the
# other on the whole machine, then prints the table of the preset's
# evaluations (learning-table.sh). The preset's evaluation section
# measures every run at the same training times against the same anchors
# with the same openings; its time does not count against MINUTES.
# A run that exists already is resumed up to MINUTES (a stopped script
# continues where it left off). CONFIG=FILE benchmarks another config;
# SET="PATH=VALUE ..." a variant of it (tabula train -set), NAME=LABEL names
# the variant's runs $OUT/LABEL-MINUTESm-sSEED (default: the game).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 GAME MINUTES SEED..." >&2; exit 2; }
game=$1 minutes=$2
shift 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/learning}
config=${CONFIG:-$root/configs/$game.yaml}
mkdir -p "$OUT"
(cd "$root" && go build -o "$OUT/tabula" ./cmd/tabula)
name=${NAME:-$game}
sets=()
for kv in ${SET:-}; do sets+=(-set "$kv"); done
runs=()
for seed in "$@"; do
  run=$OUT/$name-${minutes}m-s$seed
  runs+=("$run")
  # Training time already spent (a resumed run trains only the rest).
  done_s=0
  if [ -f "$run/metrics.jsonl" ]; then
    done_s=$(jq -s '[.[].train_clock_s // 0] | max | floor' "$run/metrics.jsonl")
  fi
  left=$((minutes * 60 - done_s))
  if [ "$left" -le 0 ]; then
    echo "skip $run (trained ${done_s}s)"
    continue
  fi
  args=()
  if [ ! -f "$run/config.yaml" ]; then
    # The benchmark's table starts at 0 minutes: the untrained network.
    args=(-config "$config" "${sets[@]}" -set "seed=$seed" -set evaluation.at_start=true)
  fi
  echo "== $run: ${left}s of training (seed $seed)"
  "$OUT/tabula" train "${args[@]}" -run "$run" -max-train-time "${left}s" | grep -E '^(run|evaluat|generation|  )' || true
done
"$root/docs/repro/learning-table.sh" "${runs[@]}"
