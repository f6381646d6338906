#!/usr/bin/env bash
# carry.sh: carries a training run to another machine (through the
# repository) and back, so that a run of many hours goes on across
# machines that keep nothing but the repository.
#
#   carry.sh pack RUN DIR     copy what resuming needs from the stopped RUN into DIR
#   carry.sh unpack DIR RUN   make RUN from DIR; then `tabula train -run RUN` resumes it
#
# Carried: the frozen config (and config-changes.log, init), metrics.jsonl
# (the training clock, train_cpu_s and the curves), the arena records as
# JSON lines (the in-run evaluations the curve is placed from), the latest
# and best pointers and the checkpoints they name (weights, optimizer
# state, RNG). Not carried: the replay window, which the resumed run
# refills by self-play with its best network before it trains again
# (replay.min_samples), older checkpoints, the records' PGN copies, plots
# and sampled games. trainer's TestResumeFromCarriedFiles checks that such
# a run resumes. Every carry committed stays in the history for good: the
# size budget it keeps to is in docs/repro/README.md, and pack warns past
# it.
set -euo pipefail

usage() { sed -n '2,8p' "$0" >&2; exit 2; }

# pointed prints the checkpoint file a pointer (RUN/latest, RUN/best) names:
# its first line.
pointed() { head -1 "$1"; }

pack() {
  local run=$1 dir=$2
  [ -f "$run/config.yaml" ] && [ -f "$run/latest" ] || { echo "carry: $run is not a run with checkpoints" >&2; exit 1; }
  # The trainer holds RUN/lock while it runs: a copy then could mix
  # generations.
  if command -v flock >/dev/null && ! flock -n "$run/lock" true; then
    echo "carry: $run is in use by a trainer; stop it first (Ctrl-C saves)" >&2; exit 1
  fi
  local tmp
  mkdir -p "$(dirname "$dir")"
  tmp=$(mktemp -d "$(dirname "$dir")/.carry.XXXXXX")
  mkdir -p "$tmp/checkpoints"
  for f in config.yaml config-changes.log init metrics.jsonl latest best; do
    [ -f "$run/$f" ] && cp "$run/$f" "$tmp/"
  done
  if [ -d "$run/arena" ]; then
    mkdir "$tmp/arena"
    find "$run/arena" -maxdepth 1 -type f -name '*.jsonl' -exec cp {} "$tmp/arena/" \;
  fi
  for p in latest best; do
    cp "$run/checkpoints/$(pointed "$run/$p")" "$tmp/checkpoints/"
  done
  # Replace DIR whole: an earlier carry's checkpoints are not kept.
  rm -rf "$dir.old"
  [ -e "$dir" ] && mv "$dir" "$dir.old"
  mv "$tmp" "$dir"
  rm -rf "$dir.old"
  echo "carried $(pointed "$run/latest") (best $(pointed "$run/best")) into $dir: $(du -sh "$dir" | cut -f1)"
  # The budget (docs/repro/README.md): besides the checkpoints, 2 MB.
  local rest
  rest=$(du -sk --exclude=checkpoints "$dir" | cut -f1)
  if [ "$rest" -gt 2048 ]; then
    echo "carry: $dir holds ${rest} KB besides its checkpoints, over the 2 MB budget (docs/repro/README.md)" >&2
  fi
}

unpack() {
  local dir=$1 run=$2
  [ -f "$dir/config.yaml" ] && [ -f "$dir/latest" ] || { echo "carry: $dir holds no carried run" >&2; exit 1; }
  [ -e "$run" ] && { echo "carry: $run exists; unpack into a new directory" >&2; exit 1; }
  mkdir -p "$(dirname "$run")"
  cp -r "$dir" "$run"
  echo "resume with: tabula train -run $run [-until-cpu TOTAL | -max-cpu D]"
}

case "${1:-}" in
  pack) [ $# -eq 3 ] || usage; pack "$2" "$3" ;;
  unpack) [ $# -eq 3 ] || usage; unpack "$2" "$3" ;;
  *) usage ;;
esac
