// Package xiangqi implements Xiangqi (Chinese chess): rules, FEN, move
// notation, fast legal move generation with perft, and the network encoding.
//
// Board: squares are numbered rank*9 + file, rank 0 being Red's back rank
// (rank "1" in UCI text, "0" in ICCS) and file 0 file "a". Red (upper case in
// FEN) is game.First and moves first.
//
// Representation (after ElephantEye): a mailbox of piece ids, a piece list,
// and a 9-bit occupancy word per rank and a 10-bit one per file, so that
// chariot and cannon targets and all attack tests are table look-ups.
// Legality is decided without making the move for every move that cannot
// expose the own general: only moves touching the general's rank, file or
// horse-leg squares (and general moves, and all moves in check) are tested
// on the board.
//
// Rules as implemented (as Fairy-Stockfish and Pikafish do): the generals may
// not face each other on an open file; a side without legal moves loses
// (checkmate and stalemate alike); at the third occurrence of a position the
// side that gave check with every one of its moves in the last cycle while
// the other did not loses, otherwise the game is drawn; 120 plies without a
// capture draw; a position where neither side has a chariot, horse, cannon or
// soldier is drawn; the option PlyCap (default 400) draws at that game ply.
package xiangqi
