// Package uci speaks the Universal Chess Interface protocol on both sides.
//
// The engine side, Engine, runs a UCI loop over any registered game in the
// style of Fairy-Stockfish: the game is chosen with the UCI_Variant option,
// rule options of the games appear as UCI options, and `go perft N` prints a
// divide. It reads commands from any io.Reader and writes to any io.Writer,
// so it runs in-process in tests:
//
//	e, err := uci.NewEngine(os.Stdin, os.Stdout, uci.WithVariant("xiangqi"))
//	if err != nil {
//		return err
//	}
//	return e.Run(ctx)
//
// Searching (`go depth 6`, `go movetime 500`, ...) is delegated to a
// Searcher given with WithSearcher; without one the engine answers that
// search is not available. With a Searcher the engine declares the
// option MoveOverhead (milliseconds, default 50): it is taken off `go
// movetime` and off the clock of the side to move before the searcher
// plans its time, and the engine stops the search at movetime, or the
// clock, less the overhead, so that the move reaches a GUI with a hard
// limit in time even when the searcher overruns.
//
// A rejected `position` command leaves the engine without a position,
// rather than with the one before it: until a valid `position`,
// `ucinewgame` or a variant or rule change, `go` answers an `info string
// error` naming the rejected command and `bestmove (none)` (`nobestmove`
// in UCCI), and `d`, `go perft` and `banmoves` say there is no position.
//
// # UCCI
//
// Chinese GUIs speak UCCI (Universal Chinese Chess Interface 3.0,
// xqbase.com; ElephantEye is its reference engine). When the engine
// receives `ucci` while the variant is xiangqi it switches to UCCI for the
// rest of the session; on another variant it refuses with an error line
// and keeps speaking UCI. Implemented:
//
//   - `ucci` answers `id name`, `id author`, the options in UCCI syntax
//     (`option hashsize type spin min 1 max 4096 default 64`, `option
//     Mover type combo var ab var mcts var abzero default ab`, `option
//     Network type string default <empty>`, `option newgame type button`,
//     `option usemillisec type check default true`, `option MoveOverhead
//     type spin min 0 max 5000 default 50`) and `ucciok`. Hash and
//     Threads are declared under UCCI's names hashsize and threads;
//     UCI_Variant and Notation are not offered (the game is xiangqi,
//     moves are ICCS).
//   - Moves in and out are ICCS text: files a-i, ranks 0-9 from Red's side
//     (`h2e2`), in position, banmoves, bestmove, ponder and pv.
//   - `setoption NAME [VALUE]` without name/value keywords (the UCI form is
//     accepted too); `setoption usemillisec true|false` (on/off too),
//     `setoption newgame` for a new game.
//   - `position fen F [moves ...]` and `position startpos [moves ...]`.
//   - `banmoves M...`: moves the searches of this position may not play,
//     until the next position or new game.
//   - `go [draw] depth N | depth infinite | infinite | nodes N |
//     time T [movestogo N | increment I] [opptime T [oppmovestogo N |
//     oppincrement I]]`: T and I in milliseconds, or seconds after
//     `setoption usemillisec false`; time without movestogo or increment
//     means one move to go, as in ElephantEye. `movetime MS` is accepted as
//     an extension. `go depth 0` answers nobestmove at once; draw offers
//     are never accepted; `go ponder` is refused (no pondering).
//   - Info lines as ElephantEye writes them: `info depth D score S pv ...`
//     (S in centi-units, soldier = 100; a mate n plies away is 10000 - n,
//     negative when mated), `info time T nodes N`, `info message ...`
//     (errors too: `info message error: ...`).
//   - `bestmove M [ponder M]`, or `nobestmove` when the position has no
//     legal move, every legal move is banned, there is no position (a
//     position command was rejected), or go fails; `stop` when no
//     search runs answers nobestmove, as the protocol recommends.
//   - `isready`/`readyok`; `quit` (and `bye`, which some GUIs send) answers
//     `bye` and ends Run; `ponderhit` is accepted without effect; `probe`
//     and `pophash` are not implemented.
//
// The client side, Client, drives an external UCI engine such as
// Fairy-Stockfish as a subprocess with timeouts on every wait:
//
//	c, err := uci.Start(ctx, "/usr/games/fairy-stockfish")
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	if err := c.Handshake(ctx); err != nil {
//		return err
//	}
//	if err := c.SetOption(ctx, "UCI_Variant", "xiangqi"); err != nil {
//		return err
//	}
//	divide, total, err := c.Perft(ctx, "position startpos", 3)
package uci
