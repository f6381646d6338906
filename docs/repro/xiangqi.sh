#!/usr/bin/env bash
# Xiangqi: the thesis's comparisons (seed-xiangqi-abs-vs-ppa.md §4.7, §4.8,
# Appendix E) from the start position, 170-ply games. Usage:
# docs/repro/xiangqi.sh [SET...]; sets: equaltime, playouts (= ppap ppafp mast),
# pairs (= mastppap mastppafp ppapppafp). Results:
# $OUT/results.jsonl (default /tmp/repro).
source "$(dirname "$0")/lib.sh"

X=(-variant xiangqi -opening-plies 0 -ply-cap 170)

equaltime() { # equal time, 200 ms per move (the thesis: 0.5 s to 10 s)
  match xq-mast-vs-uct-200ms "${X[@]}" -games 100 -a mast:movetime=200ms -b uct:movetime=200ms
  match xq-ab-vs-uct-200ms "${X[@]}" -games 60 -a ab:movetime=200ms -b uct:movetime=200ms
  match xq-ab-vs-mast-200ms "${X[@]}" -games 60 -a ab:movetime=200ms -b mast:movetime=200ms
}

# Equal playouts (§4.7 at a tenth of its 20,000), 100 games in chunks of 20.
ppap() { chunks 5 xq-ppap-vs-uct-2k "${X[@]}" -games 20 -a ppap:playouts=2000 -b uct:playouts=2000; }
ppafp() { chunks 5 xq-ppafp-vs-uct-2k "${X[@]}" -games 20 -a ppafp:playouts=2000 -b uct:playouts=2000; }
mast() { chunks 5 xq-mast-vs-uct-2k "${X[@]}" -games 20 -a mast:playouts=2000 -b uct:playouts=2000; }
playouts() { ppap && ppafp && mast; }

# The other §4.7 pairings with the thesis's shared settings (digest §4.9):
# c = 0.65 for MAST vs PPAP/PPAFP; p = 1.5, alpha = 0.18, c = 0.4 for PPAP vs PPAFP.
mastppap() { chunks 5 xq-mast-vs-ppap-2k "${X[@]}" -games 20 -a mast:c=0.65,playouts=2000 -b ppap:c=0.65,playouts=2000; }
mastppafp() { chunks 5 xq-mast-vs-ppafp-2k "${X[@]}" -games 20 -a mast:c=0.65,playouts=2000 -b ppafp:c=0.65,playouts=2000; }
ppapppafp() {
  chunks 5 xq-ppap-vs-ppafp-2k "${X[@]}" -games 20 -a ppap:p=1.5,alpha=0.18,c=0.4,playouts=2000 \
    -b ppafp:p=1.5,alpha=0.18,c=0.4,playouts=2000
}
pairs() { mastppap && mastppafp && ppapppafp; }

for set in "${@:-equaltime playouts}"; do
  for s in $set; do "$s"; done
done
