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
// search is not available.
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
