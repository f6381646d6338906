package cecp_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tabula-zero/tabula/cecp"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/uci"
	"github.com/tabula-zero/tabula/uci/ucitest"
)

// quickSearcher plays the first legal move at once, and takes any option.
type quickSearcher struct{ optionSearcher }

func (s *quickSearcher) Search(ctx context.Context, p game.Position, lim uci.Limits, info func(string)) (uci.SearchResult, error) {
	moves := p.GenerateMoves(nil)
	if len(moves) == 0 {
		return uci.SearchResult{}, nil
	}
	info("depth 1 score cp 0 nodes 1 time 0 pv " + p.FormatMove(moves[0]))
	return uci.SearchResult{Best: moves[0]}, nil
}

// cecpLine matches every line the engine may write.
var cecpLine = regexp.MustCompile(`^(feature .*|pong .*|move [a-i]\d[a-i]\d|Error \(.*|Illegal move: .*|\d+ -?\d+ \d+ \d+ .*|(1-0|0-1|1/2-1/2) \{.*\})$`)

// FuzzCECP feeds arbitrary command text to the CECP loop: Run must not
// panic, must end at the end of the input (or promptly at the deadline)
// and must write only well-formed lines without control characters.
func FuzzCECP(f *testing.F) {
	for _, s := range []string{
		"xboard\nprotover 2\nnew\nvariant xiangqi\nsd 2\ngo\nquit\n",
		// The probe's: an option while the engine thinks.
		"option Mover=mcts\noption Threads=4\nst 3\ngo\noption Network=xiangqi\nping 1\nquit\n",
		"new\nlevel 0 60 0\ntime 600000\notim 600000\nusermove h2e2\noption Network=bad\n?\nping 2\n",
		"st nan\nst inf\nst 1e300\nst -0\nlevel 0 5 nan\nlevel 0 5:99 1e-9\nlevel 40 9223372036854775807 0\ngo\n",
		"time -99999999999999999999\notim 99999999999\nsd 0\nsd 10001\nst 0.001\ngo\nforce\nundo\nremove\nplayother\n",
		"frob\x1b[31m\x07\r\n\x00\xff\u2028\x85 ping\nping \x01\nvariant \x7f\n" + strings.Repeat("x", 3000) + "\nping 3\n",
		"setboard 9/9 w\ngo\nusermove h2e2\nsetboard rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR b - - 0 1\ngo\nh7e7\n",
		"option MoveOverhead=5001\noption MoveOverhead\noption =\noption Threads=\npost\nnopost\nhard\neasy\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		out := &ucitest.Output{}
		e, err := cecp.New(strings.NewReader(data), out, &quickSearcher{}, "tabula")
		if err != nil {
			t.Fatal(err)
		}
		ucitest.RunBounded(t, e.Run, time.Second, 5*time.Second, data)
		ucitest.CheckLines(t, out.String(), cecpLine, data)
	})
}
