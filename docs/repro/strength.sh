#!/usr/bin/env bash
# The strength levels of player/strength.go (UCI_Elo) calibrated on the
# outside Xiangqi ladder (docs/strength.md): each level, a node budget and a
# share of random moves, plays one fixed-node match against a rung whose Elo
# the ladder gives; its Elo is the rung's plus the match's difference. The
# random shares are played as ab:elo=E at the table's own points, so run it
# with the table's Elo values of the levels measured. Node-limited players:
# the results do not depend on the machine's load (two games at once).
# Records in $OUT/arena (default /tmp/strength).
OUT=${OUT:-/tmp/strength}
source "$(dirname "$0")/lib.sh"

FSF=${FSF:-/usr/games/fairy-stockfish}
fsf() { echo "uci:$FSF,nodes=$1,Threads=1,Hash=16,name=fsf-n$1"; }
mkdir -p "$OUT/arena"
run() { # run LABEL GAMES A B
  echo "== $1"
  arena -variant xiangqi -seed 47 -a "$3" -b "$4" -games "$2" -concurrency 2 -q -out "$OUT/arena" -label "$1" | tail -2
}
for ev in learned classical; do
  e=${ev:0:1}
  # The random shares at 1,024 nodes: 0.5, 0.25 and 0.1 (the table's Elo of each).
  case $ev in learned) r50=-323 r25=-275 r10=-4 ;; classical) r50=-314 r25=-253 r10=-85 ;; esac
  run "$e-r50-fsf1" 100 "ab:elo=$r50,eval=$ev,name=$e-r50" "$(fsf 1)"
  run "$e-r25-fsf10" 100 "ab:elo=$r25,eval=$ev,name=$e-r25" "$(fsf 10)"
  run "$e-r10-d1" 100 "ab:elo=$r10,eval=$ev,name=$e-r10" "ab:depth=1"
done
run L-n1024-fsf1000 100 "ab:nodes=1024,eval=learned,name=L-n1024" "$(fsf 1000)"
run L-n1000-fsf300 40 "ab:nodes=1000,eval=learned,name=L-n1000" "$(fsf 300)"
run L-n4096-fsf3000 100 "ab:nodes=4096,eval=learned,name=L-n4096" "$(fsf 3000)"
run L-n4000-fsf1000 40 "ab:nodes=4000,eval=learned,name=L-n4000" "$(fsf 1000)"
run L-n16384-fsf10000 100 "ab:nodes=16384,eval=learned,name=L-n16384" "$(fsf 10000)"
run L-n16000-fsf3000 40 "ab:nodes=16000,eval=learned,name=L-n16000" "$(fsf 3000)"
run L-n65536-fsf30000 60 "ab:nodes=65536,eval=learned,name=L-n65536" "$(fsf 30000)"
run C-n1024-fsf300 100 "ab:nodes=1024,eval=classical,name=C-n1024" "$(fsf 300)"
run C-n4096-fsf1000 100 "ab:nodes=4096,eval=classical,name=C-n4096" "$(fsf 1000)"
run C-n16384-fsf3000 100 "ab:nodes=16384,eval=classical,name=C-n16384" "$(fsf 3000)"
run C-n16384-fsf10000 100 "ab:nodes=16384,eval=classical,name=C-n16384" "$(fsf 10000)"
run C-n65536-fsf10000 60 "ab:nodes=65536,eval=classical,name=C-n65536" "$(fsf 10000)"
