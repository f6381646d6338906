#!/usr/bin/env bash
# Rebuilds the shipped networks (models/) from scratch and measures them
# for their cards (Xiangqi's: the two-hour network its self-play began
# from, the card's previous network): docs/repro/models.sh [connect4|lion|xiangqi]... (all three
# by default). Each game trains a fresh run under $OUT/GAME with the
# preset and the settings its card names, exports the best network as a
# playing checkpoint to $OUT/GAME.ckpt and prints the card's figures. It
# does not replace models/GAME.ckpt: a model is replaced only by one
# measured stronger (copy it in, then `cd models && sha256sum *.ckpt *.nnue
# > SHA256SUMS`, and rewrite the card). Wall times: 30 min (Connect Four,
# Catch the Lion), 2 h (Xiangqi), plus the measurements, on 2 cores.
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-/tmp/models}

build() { # GAME TIME TRAIN-FLAGS...
  local g=$1 t=$2
  shift 2
  if [ ! -e "$OUT/$g/best" ]; then
    "$TABULA" train -game "$g" -run "$OUT/$g" -max-train-time "$t" -keep-checkpoints 0 "$@"
  fi
  "$TABULA" export -checkpoint "$OUT/$g" -o "$OUT/$g.ckpt"
  jq -r 'select(.kind == "evaluation") | "train clock \(.train_clock_s) s, train CPU \(.train_cpu_s) s, generation \(.generation), step \(.step)"' "$OUT/$g/metrics.jsonl" | tail -1
}

measure() { # GAME: the card's figures
  local g=$1 net="net:$OUT/$g.ckpt,sims=64"
  case $g in
  connect4)
    for set in Test_L3_R1 Test_L2_R1 Test_L2_R2 Test_L1_R1; do
      arena -a "net:$OUT/$g.ckpt,sims=0" -pons "$set" -positions 1000
      arena -a "$net" -pons "$set" -positions 1000
    done
    arena -a "$net" -b ab:depth=4 -games 200 -opening-plies 4 -concurrency 2 -q
    arena -a "$net" -b ab:depth=6 -games 200 -opening-plies 4 -concurrency 2 -q
    ;;
  lion)
    arena -a "net:$OUT/$g.ckpt,sims=0" -lion-oracle embedded
    arena -a "$net" -lion-oracle embedded
    arena -a "$net" -b ab:depth=4 -games 200 -opening-plies 4 -concurrency 2 -q
    arena -a "$net" -b ab:depth=6 -games 200 -opening-plies 4 -concurrency 2 -q
    ;;
  xiangqi)
    arena -a "$net" -b random -games 20 -concurrency 2 -q
    # Placed on the outside ladder, whose records (docs/repro/xiangqi-ladder.sh
    # untimed) it expects in $LADDER.
    NET="$net,name=$g" GAMES=100 OUT=${LADDER:-/tmp/ladder} docs/repro/xiangqi-ladder.sh place
    ;;
  esac
}

cd "$(dirname "$0")/../.."
games=("$@")
[ ${#games[@]} -gt 0 ] || games=(connect4 lion xiangqi)
for g in "${games[@]}"; do
  case $g in
  connect4 | lion) build "$g" 30m ;;
  # The two-hour teacher network's run, where the shipped network's
  # self-play began (models/xiangqi.md; xiangqi-continuation-seed.sh goes
  # on from it): seed 2, the cosine over 26,000 steps (its floor near the
  # end of the two hours on the 2-core AVX-512 Xeon).
  xiangqi) build "$g" 2h -set seed=2 -set training.total_steps=26000 ;;
  *) echo "models.sh: unknown game $g (connect4, lion, xiangqi)" >&2; exit 2 ;;
  esac
  measure "$g"
done
