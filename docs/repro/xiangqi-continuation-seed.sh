#!/usr/bin/env bash
# xiangqi-continuation-seed.sh: replays the Xiangqi continuation's whole
# schedule (A, then S, then L: docs/notebook/xiangqi-selfplay.md) from the shipped
# network with another seed, so that the curve's level has a second seed.
#
#   xiangqi-continuation-seed.sh SEED RUN [END]
#
# The phases change the run's config where the seed-2 path changed it:
#   generations  1-26  the network's own Gumbel search, 160/32 simulations,
#                      completed-Q targets, window 200,000, rate 0.01
#   generations 27-48  rate 0.02 (0.006 from step 9,000)
#   generations 49-95  window 60,000, 400 simulations on the recorded
#                      quarter, 0 to 8 random plies opening each game
#   then               rate 0.002 from step 9,500, to generation END
#                      (default 112, where the seed-2 path reached the
#                      issue's 8 CPU-hours), or until train_cpu_s reaches
#                      END when it is a duration (8h)
# Stopped anywhere (Ctrl-C saves), the same command resumes it in its
# phase. TABULA names the binary (default: go run ./cmd/tabula).
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
seed=$1 run=$2 end=${3:-112}
case $seed in '' | *[!0-9]*) echo "xiangqi-continuation-seed: seed $seed is not a number" >&2; exit 2 ;; esac
last=0 until=
case $end in
*[!0-9]*) until=$end ;;
*) last=$end ;;
esac
if [ -z "$until" ] && [ "$last" -le 95 ]; then
  echo "xiangqi-continuation-seed: END $end: the last phase starts after generation 95 (a generation above it, or a CPU total such as 8h)" >&2
  exit 2
fi
read -r -a tabula <<<"${TABULA:-go run ./cmd/tabula}"

# generation prints the run's last finished generation (0 before the first).
generation() {
  [ -f "$run/metrics.jsonl" ] || { echo 0; return; }
  grep '"kind":"generation"' "$run/metrics.jsonl" | tail -1 |
    sed -n 's/.*"generation":\([0-9]*\).*/\1/p' | grep . || echo 0
}

# train runs one phase: "$@" are its -set options; to is the generation
# it ends at (0: the CPU budget).
train() {
  local to=$1 have
  shift
  have=$(generation)
  local limit=(-until-cpu "$until")
  [ "$to" -gt 0 ] && limit=(-max-generations $((to - have)))
  local opts=()
  for s in "$@"; do opts+=(-set "$s"); done
  if [ -f "$run/config.yaml" ]; then
    "${tabula[@]}" train -run "$run" -accept-config-change "${opts[@]}" "${limit[@]}"
  else
    "${tabula[@]}" train -game xiangqi -init xiangqi -run "$run" "${opts[@]}" "${limit[@]}"
  fi
}

first=(seed="$seed" selfplay.abzero.teacher_generations=0 selfplay.abzero.generations=0
  search.simulations=160 search.fast_simulations=32 training.schedule=piecewise
  training.learning_rate=0.01 'training.boundaries=[3000]' 'training.rates=[0.003]'
  training.warmup_steps=0 training.total_steps=0 training.min_learning_rate=0
  'gating.matches=[]' evaluation.every=30m)
second=("${first[@]}" training.learning_rate=0.02 'training.boundaries=[9000]' 'training.rates=[0.006]')
third=("${second[@]}" replay.window=60000 search.simulations=400 selfplay.opening_plies_max=8)
fourth=("${third[@]}" 'training.boundaries=[9000,9500]' 'training.rates=[0.006,0.002]')

# Each phase runs while the run is short of its last generation; one that
# stops short (a budget, Ctrl-C) ends the script, to be resumed by it.
for phase in "26 first" "48 second" "95 third" "$last fourth"; do
  read -r to name <<<"$phase"
  g=$(generation)
  [ "$to" -gt 0 ] && [ "$g" -ge "$to" ] && [ -f "$run/config.yaml" ] && continue
  declare -n sets=$name
  train "$to" "${sets[@]}"
  [ "$to" -gt 0 ] && [ "$(generation)" -lt "$to" ] && { echo "xiangqi-continuation-seed: stopped at generation $(generation), short of $to; run the same command to go on" >&2; exit 1; }
done
