// Package tablebase solves Catch the Lion (package lion) under the official
// safe try rule by retrograde analysis: every legal position gets its exact
// value for the side to move, win, loss or draw, and the number of plies to
// the end of the game with best play.
//
// Build solves a material (the full game, or a sub-game with fewer pieces
// for tests) in memory; WriteFile stores it (atomically, checksummed) and
// Open maps a stored table, reading entries on demand. Probe answers any
// position, BestMoves lists its optimal moves. docs/lion-tablebase.md
// describes the index, the build and the checks.
//
// Every win is in an odd number of plies except a win in 0 (our lion has
// survived on its far rank), and every loss in an even number: a position
// whose opponent could leave our lion on its far rank is one where we could
// take their lion instead, a win in 1, never a loss. One byte per entry
// then holds both the outcome and distances up to 253 plies.
package tablebase
