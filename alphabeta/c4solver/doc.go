// Package c4solver is an exact Connect Four solver after the Connect Four
// seed (Liese 2024) and Pascal Pons' solver, on the bitboards of
// game/connect4.
//
// Scores follow Pons' convention, from the side to move's view: 0 is a
// draw; a win scores 22 minus the number of stones the winner has on the
// board after its winning stone (so (43 - moves)/2 for a win with the next
// stone, where moves is the number of stones before it); a loss is the
// negation of the opponent's win.
//
// The exact algorithms are selectable by name (see Algorithms): fail-soft,
// hybrid and fail-hard alpha-beta and PVS over the full reachable window,
// MTD(f) from f = 0, NegaC* (bisection by null-window searches) and the
// seed's optimised NegaC* (Pons' probe at half the reachable score). They
// share one negamax with the seed's optimisations: the immediate-win check
// at the root, non-losing-move pruning (which keeps the invariant that the
// side to move at an inner node cannot win at once), the reachable-score
// window, threat-count move ordering with centre-first ties, and a
// fixed-size transposition table of lower/upper bounds keyed by the packed
// key, with an optional mirrored lookup. A node allocates nothing.
//
// Evaluate and SearchDepth are the seed's cell-weight heuristic and a
// depth-limited alpha-beta search on it, for players that do not solve.
package c4solver
