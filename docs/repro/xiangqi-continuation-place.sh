#!/usr/bin/env bash
# xiangqi-continuation-place.sh NAME CKPT [SETS]: places a network of the
# Xiangqi continuation (issue 48) the ways the curve is read, 64
# simulations a move against Fairy-Stockfish at 1,000 and 3,000 nodes:
#   placement  200 games against each, 4 random plies, -seed 47
#              (xiangqi-ladder.sh place)
#   seed48     200 more against each from fresh random openings, -seed 48
#   heldout    300 games against 1,000 nodes from the 150 balanced
#              openings of Fairy-Stockfish's own games (arena/xqset), -seed 49
# SETS (default: all three) chooses among them. Each set's records, moves
# left out, are appended to its file beside this script
# (xiangqi-placements, -seed48, xiangqi-heldout-openings .jsonl.gz) unless
# NAME has records there already; then add NAME's line to
# xiangqi-continuation.tsv and run xiangqi-continuation-plot.sh. A stopped
# set resumes where it stopped. TABULA names the binary (default
# /tmp/tabula, built if missing); OUT the ladder's scratch directory
# (/tmp/ladder; the other sets' records go to OUT/continuation).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
name=$1 ckpt=$2 sets=${3:-placement seed48 heldout}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -f "$ckpt" ] || { echo "xiangqi-continuation-place: no checkpoint $ckpt" >&2; exit 1; }
ladder=${OUT:-/tmp/ladder}
# lib.sh's match plays and resumes the two other sets, apart from the
# ladder's records (which its placements are rated with).
OUT=$ladder/continuation
source "$here/lib.sh"
export TABULA
command -v jq >/dev/null || { echo "xiangqi-continuation-place: needs jq (apt-get install jq)" >&2; exit 1; }
net="net:$ckpt,sims=64,name=$name"
fsf() { echo "uci:/usr/games/fairy-stockfish,nodes=$1,Threads=1,Hash=16,name=fsf-n$1"; }

# append GZ FILTER FILES...: adds the records (jq FILTER applied) to GZ,
# atomically, unless GZ already holds games of NAME.
append() {
  local gz=$1 filter=$2
  shift 2
  if zcat "$gz" | jq -e --arg n "$name" 'select(.a == $n or .b == $n)' >/dev/null 2>&1; then
    echo "$(basename "$gz") already holds games of $name: not appended"
    return
  fi
  { zcat "$gz"; cat "$@" | jq -c "$filter"; } | gzip -9 >"$gz.tmp"
  mv "$gz.tmp" "$gz"
  echo "$(basename "$gz"): $(zcat "$gz" | wc -l) games"
}

CONCURRENCY=2
for set in $sets; do
  case $set in
  placement)
    OUT=$ladder NET=$net VS="1000 3000" GAMES=200 "$here/xiangqi-ladder.sh" place | tail -3
    append "$here/xiangqi-placements.jsonl.gz" 'del(.moves)' \
      "$ladder/place/$name/arena/place-$name-vs-fsf-n1000.jsonl" "$ladder/place/$name/arena/place-$name-vs-fsf-n3000.jsonl"
    ;;
  seed48)
    for n in 1000 3000; do
      SEED=48 match "place2-$name-vs-fsf-n$n" -variant xiangqi -a "$net" -b "$(fsf $n)" -games 200
    done
    append "$here/xiangqi-placements-seed48.jsonl.gz" 'del(.moves)' \
      "$OUT/records/place2-$name-vs-fsf-n1000.jsonl" "$OUT/records/place2-$name-vs-fsf-n3000.jsonl"
    ;;
  heldout)
    openings=$OUT/heldout-openings.txt
    # The Xiangqi set's positions at plies 8 to 20 within 100 centipawns of
    # even by the engine's depth-10 score (the notebook's "Openings the
    # placements do not use").
    awk -F'\t' '!/^#/ && $2>=8 && $2<=20 { split($4,a," "); split(a[1],b,":"); s=b[2]; if (s<0) s=-s; if (s<=100) print $1 }' \
      "$root/arena/xqset/positions.txt" >"$openings"
    SEED=49 match "fsfop-$name-vs-fsf-n1000" -variant xiangqi -a "$net" -b "$(fsf 1000)" -games 300 -openings "$openings"
    append "$here/xiangqi-heldout-openings.jsonl.gz" 'del(.moves)' "$OUT/records/fsfop-$name-vs-fsf-n1000.jsonl"
    ;;
  *) echo "xiangqi-continuation-place: unknown set $set (placement, seed48, heldout)" >&2; exit 2 ;;
  esac
done
