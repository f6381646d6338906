#!/usr/bin/env bash
# learning-compare.sh GAME MINUTES "SEED..." VARIANT... : the learning
# benchmark over variants of GAME's preset. Each VARIANT is NAME or
# NAME=PATH=VALUE;PATH=VALUE (tabula train -set overrides, values without
# spaces, e.g. training.rates=[0.01,0.002]; "base" alone is the
# preset). Every variant trains from scratch once per seed for MINUTES of
# training time (learning.sh), then one table shows every evaluation of
# every run, with the spread between seeds per variant.
#
#   docs/repro/learning-compare.sh connect4 30 "1 2" base \
#     nogate=gating.matches=[] noweight=selfplay.surprise_weight=0
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 GAME MINUTES \"SEED...\" VARIANT..." >&2; exit 2; }
game=$1 minutes=$2 seeds=$3
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${OUT:-/tmp/learning}
for v in "$@"; do
  name=${v%%=*}
  sets=""
  [ "$name" != "$v" ] && sets=${v#*=}
  echo "== variant $name: ${sets:-the preset}"
  # shellcheck disable=SC2086
  NAME=$name SET="${sets//;/ }" OUT=$OUT "$here/learning.sh" "$game" "$minutes" $seeds >/dev/null
done
for v in "$@"; do
  name=${v%%=*}
  echo
  echo "### $name"
  runs=()
  for s in $seeds; do runs+=("$OUT/$name-${minutes}m-s$s"); done
  "$here/learning-table.sh" "${runs[@]}"
done
