#!/usr/bin/env bash
# Catch the Lion: the thesis's comparisons (seed-catch-the-lion-hybrids.md
# §3) at equal time. Our engines run about 1,000 times as many simulations
# per second as the thesis's Python, so its 2 s and 20 s per move become
# 2 ms and 20 ms here (MCTS-Solver then runs about as many simulations per
# move as the thesis's did). Usage: docs/repro/lion.sh [SET...]; sets:
# main2 grid2 main20 ab. Results: $OUT/results.jsonl (default /tmp/repro).
source "$(dirname "$0")/lib.sh"

L=(-variant lion -rules TryRule=immediate -opening-plies 0 -ply-cap 100)

# vs_solver NAME GAMES SPEC T: hybrid SPEC against MCTS-Solver, both at T per move.
vs_solver() {
  match "lion-$1-vs-solver-$4" "${L[@]}" -games "$2" -a "$(timed "$3" "$4")" -b "solver:movetime=$4"
}

main2() { # the thesis's best hybrids vs MCTS-Solver at "2 s", 1000 games
  vs_solver mr1 1000 mcts-mr:depth=1 2ms
  vs_solver mb3 1000 mcts-mb:depth=3 2ms
  vs_solver ms6-20 1000 mcts-ms:depth=6,threshold=20 2ms
}

grid2() { # the parameter grids of §3.2 at "2 s", 400 games each
  for d in 2 3 4; do vs_solver mr$d 400 mcts-mr:depth=$d 2ms; done
  for d in 1 2 4 5 6; do vs_solver mb$d 400 mcts-mb:depth=$d 2ms; done
  for d in 2 4 6; do
    for t in 1 2 5 10 20 50 100 200 500; do
      [ "$d-$t" = 6-20 ] || vs_solver ms$d-$t 400 mcts-ms:depth=$d,threshold=$t 2ms
    done
  done
}

main20() { # the best hybrids vs MCTS-Solver at "20 s", 400 games
  for d in 1 2; do vs_solver mr$d 400 mcts-mr:depth=$d 20ms; done
  for d in 3 5; do vs_solver mb$d 400 mcts-mb:depth=$d 20ms; done
  for dt in 2-1 4-20 6-20 6-100 6-200; do
    vs_solver ms$dt 400 mcts-ms:depth=${dt%-*},threshold=${dt#*-} 20ms
  done
}

ab() { # the minimax family (§3.1.2, §3.3): alpha-beta at "2 s" vs MCTS-Solver at "60 s", hybrids vs MTD(f) at equal time
  match lion-mtdf-2ms-vs-solver-60ms "${L[@]}" -games 400 -a ab:movetime=2ms,algo=mtdf -b solver:movetime=60ms
  match lion-abtt-2ms-vs-solver-60ms "${L[@]}" -games 400 -a ab:movetime=2ms,algo=alphabeta -b solver:movetime=60ms
  for s in solver mcts-mr:depth=1 mcts-mb:depth=3 mcts-ms:depth=2,threshold=1 mcts-ms:depth=4,threshold=20 mcts-ms:depth=6,threshold=20; do
    n=${s//[:=,]/-}
    match lion-$n-vs-mtdf-2ms "${L[@]}" -games 1000 -a "$(timed "$s" 2ms)" -b ab:movetime=2ms,algo=mtdf
  done
  for s in solver mcts-mr:depth=1 mcts-mb:depth=3 mcts-ms:depth=6,threshold=200; do
    n=${s//[:=,]/-}
    match lion-$n-vs-mtdf-20ms "${L[@]}" -games 200 -a "$(timed "$s" 20ms)" -b ab:movetime=20ms,algo=mtdf
  done
  # §3.2's third test: the hybrid at "20 s" against alpha-beta at fixed depth 4
  for s in mcts-mr:depth=1 mcts-mb:depth=3 mcts-ms:depth=6,threshold=20; do
    n=${s//[:=,]/-}
    match lion-$n-20ms-vs-ab4 "${L[@]}" -games 200 -a "$(timed "$s" 20ms)" -b ab:depth=4
  done
}

for set in "${@:-main2 grid2 main20 ab}"; do
  for s in $set; do "$s"; done
done
