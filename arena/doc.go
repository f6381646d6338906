// Package arena plays and scores matches between players: alpha-beta at
// a depth, time or node budget, a network with MCTS, Alpha-Beta-Zero, a
// network-free MCTS, or random moves, each given by a spec string
// (ParsePlayer). Matches come in colour-swapped pairs from the same
// opening, run games concurrently, adjudicate by the rules and a ply
// cap, and write game records (JSON lines, and PGN for Xiangqi). Results
// are W/D/L, score, Elo with a 95% interval, LOS and an optional SPRT
// that stops a match early; a Bradley-Terry fit over recorded games gives
// a ratings table; for Connect Four, MeasureAccuracy scores a player's
// moves on Pascal Pons' positions with the exact solver.
//
// See docs/arena.md for the formulas and the command line (tabula arena).
package arena
