package alphabeta

import "github.com/tabula-zero/tabula/game"

// Position is what the searchers need from a game.
type Position interface {
	game.Position
	// Evaluate returns the static score for the side to move, in
	// centi-units.
	Evaluate() int
	// InCheck reports whether the side to move is in check (games without
	// check return false).
	InCheck() bool
	// GenerateCaptures appends to dst[:0] the legal captures, or every
	// legal move when the side to move is in check: the quiescence moves.
	GenerateCaptures(dst []game.Move) []game.Move
	// MoveValues returns the value of the piece m captures (0 for none) and
	// of the piece that moves, for capture ordering.
	MoveValues(m game.Move) (captured, mover int)
	// RuleStatus applies the rules that do not depend on the legal moves
	// (repetition, move-count rules, ply caps). A position without legal
	// moves is scored through Status instead.
	RuleStatus() game.Status
}

// NullMover is implemented by games where passing is a sound guess of a
// lower bound (null-move pruning): Xiangqi, not zugzwang-rich games.
type NullMover interface {
	// NullMoveOK reports whether passing is a fair test here: not when
	// the side to move is short of pieces and zugzwang (or stalemate,
	// which loses in Xiangqi) is likely.
	NullMoveOK() bool
	MakeNull()
	UnmakeNull()
}

// MoveShortage is implemented by games where a side not in check can be
// left without a legal move (stalemate, a loss in Xiangqi). Quiescence
// search then makes sure a move exists before standing pat wherever
// FewMoves says one might not.
type MoveShortage interface {
	FewMoves() bool
}

// QuietOrderer is implemented by games with a static ordering hint for
// quiet moves (Connect Four: threats created, then centre columns first).
// Larger is tried earlier; hints should stay below 1000.
type QuietOrderer interface {
	QuietScore(m game.Move) int
}

// ExchangeEvaluator is implemented by games with a static exchange
// evaluation: the material the side to move wins with capture m once the
// recaptures on its square are played out (negative: m loses material).
type ExchangeEvaluator interface {
	SEE(m game.Move) int
}

// QuietChecker is implemented by games with check (Xiangqi): with
// Options.QSChecks the first ply of quiescence also searches the quiet
// moves that give check, where mating attacks begin.
type QuietChecker interface {
	// GenerateQuietChecks appends to dst[:0] the legal moves that capture
	// nothing and give check; the side to move is not in check.
	GenerateQuietChecks(dst []game.Move) []game.Move
}
