// Package rollout is classical, network-free Monte-Carlo tree search with
// playouts: the baselines of the two MCTS theses behind this project.
//
//   - uct: UCT with uniformly random playouts (Xiangqi thesis, Alg. 1, 2
//     and 6): value(m) = (w + d/2)/p + c*sqrt(ln T / p), draws as half
//     wins, every move tried once before UCT applies, a playout ply cap
//     (draw), the most visited root move played.
//   - solver: MCTS-Solver (Catch the Lion thesis, Listing 2.3; Winands,
//     Bjornsson and Saito 2008): proven wins and losses in the tree, an
//     immediate win or loss detected on a node's first expansion, and the
//     secure child v + A/sqrt(n) as the final move.
//   - mcts-mr, mcts-ms, mcts-mb: the Baier/Winands hybrids on MCTS-Solver
//     (Listings 2.4-2.6): playout moves chosen by a fixed-depth win/loss
//     minimax with random tie-breaking (MR); a minimax search at a node
//     once its visits reach a threshold (MS); minimax on the siblings of a
//     proven-lost child during backpropagation (MB).
//   - ppa, ppap, ppaf, ppafp, mast: playout policy adaptation (Xiangqi
//     thesis, Alg. 5, 7, 8; Cazenave 2016): Gibbs playouts with
//     probabilities proportional to exp(k*policy[code(m)]), the policy
//     adapted after every playout with step alpha; PPAP penalises the
//     loser's moves by alpha/p; PPAF and PPAFP extend code(m) by two move
//     features (capture, target square attacked), which positions provide
//     through MoveFeaturer; MAST keeps win/game averages per move code.
//
// Results are counted on the win-rate scale [0, 1] (win 1, draw 1/2, loss
// 0) for every player, so the exploration constant c means what it means
// in the Xiangqi thesis; the Catch the Lion thesis writes win rates on
// [-1, 1], where the same exploration is 2c.
//
// The uniform playouts (uct, solver, mcts-ms, mcts-mb) draw their moves
// through RandomMover where the position implements it (Xiangqi): one
// uniformly random legal move without generating them all, the same
// distribution as a pick from the legal move list.
//
// A Searcher owns its tree and buffers and plays on the caller's position
// through make/unmake; a playout step allocates nothing. Every random
// choice comes from one PCG stream seeded by NewGame, so a search with a
// playout budget is reproducible. See docs/rollout.md for the parameters,
// their thesis sources and measured playout rates.
package rollout
