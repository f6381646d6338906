// Package mcts is Monte-Carlo tree search guided by an evaluator: PUCT as
// in AlphaZero (U = C(s) P(s,a) sqrt(N(s)) / (1 + N(s,a)), C(s) =
// log((1 + N + c_base)/c_base) + c_init) with first-play urgency, Dirichlet
// noise at the root, visit-count temperature, tree reuse between moves,
// terminal and rule outcomes in the tree with proven wins and losses
// propagated (MCTS-Solver), and Gumbel root search (Gumbel-top-k with
// sequential halving and completed-Q policy targets) as an option.
//
// Values are in [-1, 1] from the side to move's view and negated per ply.
// A Tree searches one game in one goroutine; many games share one batching
// Evaluator, which runs the network on whole batches.
package mcts
