#!/usr/bin/env bash
# The outside Xiangqi ladder: Fairy-Stockfish weakened by node limits (one
# thread, deterministic for a position), calibrated against each other and
# against random, the project's ab:depth=1..4 and its full alpha-beta at
# 100 ms, and full Fairy-Stockfish at 100 ms, into one Bradley-Terry table.
# Usage: docs/repro/xiangqi-ladder.sh [untimed|timed|table]... (default:
# all three), or NET=SPEC docs/repro/xiangqi-ladder.sh place: a network
# (SPEC such as net:RUN,sims=64,name=NAME) placed on the ladder by GAMES
# (default 60) games against each of VS (default: Fairy-Stockfish at 300,
# 1000 and 3000 nodes, ab:depth=2 and ab:depth=3; a number is a node
# limit; VS="random 1 10 ab:depth=1" for a network below ab:depth=1), rated with the ladder's records; its records stay apart in
# $OUT/place/NAME, so placing a network leaves the ladder's table as it is. untimed plays the node- and depth-limited pairs (their
# results do not depend on the machine's load; two games at once); timed
# the pairs with a 100 ms player, one game at a time: run it on a quiet
# machine. Records in $OUT/records (default /tmp/ladder), summaries in
# $OUT/results.jsonl; a stopped run resumes. The rungs' specs are
# docs/notebook/xiangqi-selfplay.md's, and the Xiangqi preset's evaluation uses them.
OUT=${OUT:-/tmp/ladder}
source "$(dirname "$0")/lib.sh"

FSF=${FSF:-/usr/games/fairy-stockfish}
X=(-variant xiangqi -seed 47)
fsf() { echo "uci:$FSF,nodes=$1,Threads=1,Hash=16,name=fsf-n$1"; }
FSF100MS="uci:$FSF,movetime=100,Threads=1,Hash=64,name=fsf-100ms"
AB100MS="ab:movetime=100,name=ab-100ms"

pair() { # pair A B GAMES: one match, labelled by the players' names
  local a=$1 b=$2 n=$3 la lb
  la=$(sed 's/.*name=//; s/^ab:/ab-/; s/=/-/g' <<<"$a")
  lb=$(sed 's/.*name=//; s/^ab:/ab-/; s/=/-/g' <<<"$b")
  match "ladder-$la-vs-$lb" "${X[@]}" -games "$n" -a "$a" -b "$b"
}

untimed() {
  CONCURRENCY=2
  pair random ab:depth=1 40
  # The rungs below ab:depth=1, where networks from the rules alone start.
  pair random "$(fsf 1)" 100
  pair "$(fsf 1)" ab:depth=1 100
  pair "$(fsf 1)" "$(fsf 10)" 100
  pair "$(fsf 10)" ab:depth=1 100
  pair "$(fsf 1)" "$(fsf 30)" 100
  pair ab:depth=1 "$(fsf 30)" 100
  pair "$(fsf 30)" "$(fsf 100)" 100
  pair "$(fsf 100)" ab:depth=2 100
  pair ab:depth=2 "$(fsf 300)" 100
  pair "$(fsf 100)" "$(fsf 300)" 100
  pair "$(fsf 300)" ab:depth=3 100
  pair ab:depth=3 "$(fsf 1000)" 100
  pair "$(fsf 300)" "$(fsf 1000)" 100
  pair "$(fsf 1000)" ab:depth=4 100
  pair ab:depth=4 "$(fsf 3000)" 100
  pair "$(fsf 1000)" "$(fsf 3000)" 100
  pair "$(fsf 3000)" "$(fsf 10000)" 100
  pair "$(fsf 10000)" "$(fsf 30000)" 100
  # Links between the engines above ab:depth=4: Fairy-Stockfish against
  # itself spreads its rungs (1,000 against 3,000 nodes scores 0.085
  # where the chain through ab:depth=4 predicts about 0.25).
  pair ab:depth=5 "$(fsf 3000)" 100
  pair ab:depth=5 "$(fsf 10000)" 100
  pair ab:depth=6 "$(fsf 10000)" 100
  pair ab:depth=6 "$(fsf 30000)" 100
}

timed() {
  CONCURRENCY=1
  pair "$(fsf 10000)" "$AB100MS" 100
  pair "$AB100MS" "$(fsf 30000)" 100
  pair "$AB100MS" "$FSF100MS" 100
  pair "$(fsf 30000)" "$FSF100MS" 100
}

place() {
  : "${NET:?set NET=net:RUN,sims=64,name=NAME}"
  local name=${NET##*name=} vs opp dir
  [ "$name" != "$NET" ] || { echo "NET needs a name=NAME" >&2; exit 2; }
  dir=$OUT/place/$name
  mkdir -p "$dir/arena"
  for vs in ${VS:-300 1000 3000 ab:depth=2 ab:depth=3}; do
    case $vs in
    [0-9]*) opp=$(fsf "$vs") ;;
    *) opp=$vs ;;
    esac
    local label
    label="place-$name-vs-$(sed 's/.*name=//; s/^ab:/ab-/; s/=/-/g' <<<"$opp")"
    if [ -f "$dir/arena/$label.done" ]; then
      echo "skip $label"
      continue
    fi
    rm -f "$dir/arena/$label.jsonl" "$dir/arena/$label.pgn"
    arena "${X[@]}" -a "$NET" -b "$opp" -games "${GAMES:-60}" -concurrency 2 -q -out "$dir/arena" -label "$label" | tail -1
    touch "$dir/arena/$label.done"
  done
  local recs=("$OUT"/records/*.jsonl)
  if [ ! -e "${recs[0]}" ]; then
    echo "place: no ladder records in $OUT/records to rate against (run untimed first, or fit the" \
      "placement games with others': tabula arena -run DIR -ratings -anchor fsf-n1000); records in $dir/arena" >&2
    return 0
  fi
  for r in "${recs[@]}"; do ln -sf "$r" "$dir/arena/"; done
  arena -run "$dir" -ratings -anchor ab:depth=1
}

table() {
  ln -sfn records "$OUT/arena"
  arena -run "$OUT" -ratings -anchor ab:depth=1
}

for set in "${@:-untimed timed table}"; do
  for s in $set; do "$s"; done
done
