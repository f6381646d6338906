// Package alphabeta holds game-independent negamax searchers: fail-hard and
// fail-soft alpha-beta, PVS, MTD(f), NegaC* and the optimised NegaC* of the
// Connect Four seed, under iterative deepening with depth, node and time
// limits, a bucketed transposition table, move ordering (TT move, captures
// by v = c*m - f, killers, history), quiescence search with check evasions,
// check extension, null-move pruning and late-move reductions where a game
// offers them, rule draws inside the search, and multi-PV root scores.
// Options.Threads > 1 searches with Lazy SMP: helper threads on copies of
// the position share the (lockless) transposition table with the main
// thread, which alone decides the move.
//
// Scores are centi-units from the side to move's view (a Xiangqi soldier is
// 100); a won position scores Mate - plies to the win, a lost one the
// negation.
//
// Games plug in through the Position interface, called once or a few times
// per node; move generation and make/unmake stay inside each game package.
package alphabeta
