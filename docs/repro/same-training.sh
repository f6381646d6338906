#!/usr/bin/env bash
# same-training.sh OLD [GAME...]: does the code at HEAD train every preset
# exactly as commit OLD did? Self-play is not reproducible bit for bit (its
# parallel games reach the batcher in the order the scheduler gives), so
# the two builds train from the same recorded shards instead: HEAD's
# tabula selfplay records about 10,000 samples of each preset's self-play
# (seed 1) once; then each build trains a fresh run of the preset from a
# copy of them (-selfplay=false) for two generations, and the script
# compares the losses both wrote at every logged step. Prints SAME or
# DIFFERENT per game; exits 1 if any differs. Default games: connect4 lion
# xiangqi. Work in $OUT (default /tmp/same-training).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OLD-COMMIT [GAME...]" >&2; exit 2; }
old=$1
shift
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-/tmp/same-training}
rm -rf "$OUT/old-src"
mkdir -p "$OUT"
git -C "$root" worktree add --detach "$OUT/old-src" "$old" >/dev/null
trap 'git -C "$root" worktree remove --force "$OUT/old-src"' EXIT
# OLD may predate the one tabula command (cmd/train then).
if [ -d "$OUT/old-src/cmd/tabula/train" ]; then
  (cd "$OUT/old-src" && go build -o "$OUT/tabula-old" ./cmd/tabula)
  train_old=("$OUT/tabula-old" train)
else
  (cd "$OUT/old-src" && go build -o "$OUT/train-old" ./cmd/train)
  train_old=("$OUT/train-old")
fi
(cd "$root" && go build -o "$OUT/tabula" ./cmd/tabula)
train_new=("$OUT/tabula" train)
status=0
for game in ${@:-connect4 lion xiangqi}; do
  shards=$OUT/shards-$game
  if [ ! -d "$shards/replay" ]; then
    # With no self-play in the run, sample_ratio is lifted (0: no limit) so
    # that training never waits for samples; it only gates, the same on
    # both sides.
    "$OUT/tabula" selfplay -game "$game" -run "$shards" -seed 1 -worker rec -time 10m -games "${GAMES:-400}" >/dev/null
  fi
  for b in old new; do
    run=$OUT/run-$game-$b
    rm -rf "$run"
    mkdir -p "$run"
    cp -r "$shards/replay" "$run/replay"
    # A build that waits for samples it will never get fails here, not forever.
    if [ "$b" = old ]; then train=("${train_old[@]}"); else train=("${train_new[@]}"); fi
    timeout 30m "${train[@]}" -game "$game" -run "$run" -selfplay=false -max-generations 2 -set "evaluation={}" -set training.sample_ratio=0 >/dev/null
    jq -c 'select(.kind == "train") | [.step, .loss, .value_loss, .policy_loss]' "$run/metrics.jsonl" >"$OUT/losses-$game-$b"
  done
  if [ -s "$OUT/losses-$game-new" ] && cmp -s "$OUT/losses-$game-old" "$OUT/losses-$game-new"; then
    echo "$game: SAME ($(wc -l <"$OUT/losses-$game-new") logged steps, last $(tail -1 "$OUT/losses-$game-new"))"
  else
    echo "$game: DIFFERENT"
    diff "$OUT/losses-$game-old" "$OUT/losses-$game-new" | head -6 || true
    status=1
  fi
done
exit $status
