#!/usr/bin/env bash
# xiangqi-curve.sh RUN...: a Xiangqi run's strength curve on the outside
# ladder. Each in-run evaluation (the preset's `evaluation` matches, kept
# in RUN/arena as e<training ms>-<i>-<opponent>.jsonl) is placed on the
# ladder by itself: its games with the ladder's records (docs/repro/
# xiangqi-ladder.sh, $LADDER default /tmp/ladder/records), rated by
# Bradley-Terry with ab:depth=1 at 0, so the rungs hardly move and each
# point's interval is its own. Prints, per evaluation: the network's
# generation, training hours, CPU-hours (train_cpu_s from metrics.jsonl),
# games and Elo with its 95% interval.
set -euo pipefail
LADDER=${LADDER:-/tmp/ladder/records}
TABULA=${TABULA:-/tmp/tabula}
[ -x "$TABULA" ] || (cd "$(dirname "${BASH_SOURCE[0]}")/../.." && go build -o "$TABULA" ./cmd/tabula)
printf '%-28s %6s %8s %8s %6s %8s %6s\n' run gen train_h cpu_h games elo ci95
for run in "$@"; do
  for e in $(ls "$run/arena" | grep -o '^e[0-9]*' | sort -u); do
    tmp=$(mktemp -d)
    mkdir "$tmp/arena"
    for r in "$LADDER"/*.jsonl "$run/arena/$e"-*.jsonl; do ln -s "$r" "$tmp/arena/"; done
    # The candidate of this evaluation: the player that is not an anchor.
    cand=$(jq -r '.a' "$(ls "$run/arena/$e"-*.jsonl | head -1)" | head -1)
    ms=${e#e}
    cpu=$(jq -s --argjson s "$((10#$ms / 1000))" '[.[] | select(.kind == "evaluation" and (.train_clock_s | floor) == $s) | .train_cpu_s] | first // empty' "$run/metrics.jsonl")
    line=$("$TABULA" arena -run "$tmp" -ratings -anchor ab:depth=1 | awk -v c="$cand" '$2 == c')
    rm -rf "$tmp"
    [ -n "$line" ] || continue
    awk -v r="$(basename "$run")" -v c="$cand" -v ms="$ms" -v cpu="${cpu:-0}" '{printf "%-28s %6s %8.2f %8.2f %6s %8s %6s\n", r, substr(c, 4), ms/3.6e6, cpu/3600, $5, $3, $4}' <<<"$line"
  done
done
