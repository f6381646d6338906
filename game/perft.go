package game

// Perfter is implemented by positions with a specialised perft.
type Perfter interface {
	Perft(depth int) uint64
}

// Perft counts the leaf nodes of the legal move tree to depth. It uses the
// position's own Perft when it has one.
func Perft(p Position, depth int) uint64 {
	if pf, ok := p.(Perfter); ok {
		return pf.Perft(depth)
	}
	return PerftGeneric(p, depth)
}

// PerftGeneric counts leaves through the Position interface alone, counting
// the last ply in bulk. It is the yardstick for what the interface costs.
func PerftGeneric(p Position, depth int) uint64 {
	bufs := make([][]Move, depth+1)
	for i := range bufs {
		bufs[i] = make([]Move, 0, 256)
	}
	return perft(p, depth, bufs)
}

func perft(p Position, depth int, bufs [][]Move) uint64 {
	if depth == 0 {
		return 1
	}
	moves := p.GenerateMoves(bufs[depth][:0])
	bufs[depth] = moves
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		p.Make(m)
		n += perft(p, depth-1, bufs)
		p.Unmake()
	}
	return n
}

// DivideEntry is one root move's share of a perft count.
type DivideEntry struct {
	Move  string
	Count uint64
}

// Divide returns the perft count below each legal root move, in generation
// order, as engines print for `go perft`.
func Divide(p Position, depth int) []DivideEntry {
	if depth < 1 {
		return nil
	}
	moves := p.GenerateMoves(nil)
	out := make([]DivideEntry, 0, len(moves))
	for _, m := range moves {
		p.Make(m)
		n := Perft(p, depth-1)
		p.Unmake()
		out = append(out, DivideEntry{Move: p.FormatMove(m), Count: n})
	}
	return out
}
