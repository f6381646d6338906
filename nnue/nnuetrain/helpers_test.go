package nnuetrain

import (
	"testing"

	"github.com/tabula-zero/tabula/alphabeta"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/nnue/nnuedata"
)

// pieceValue is the tests' known evaluation: material in centi-units.
var pieceValue = [8]int{xiangqi.Advisor: 200, xiangqi.Elephant: 200, xiangqi.Horse: 400, xiangqi.Rook: 900,
	xiangqi.Cannon: 450, xiangqi.Pawn: 100}

// material is the material balance of s from the side to move's view.
func material(s *Sample) int {
	m := 0
	for i, sq := range s.Squares {
		if sq == nnuedata.NoSquare {
			continue
		}
		c, ty := nnuedata.SlotPiece(i)
		if c == game.Color(s.Side) {
			m += pieceValue[ty]
		} else {
			m -= pieceValue[ty]
		}
	}
	return m
}

// testGames plays n seeded random games and returns their positions as
// records labelled by material: the score the balance, the result its
// sign, one slice a game.
func testGames(t testing.TB, n int, seed uint64) [][]nnuedata.Record {
	t.Helper()
	var games [][]nnuedata.Record
	for g := range n {
		var recs []nnuedata.Record
		for _, gp := range gametest.RandomPositions(xiangqi.New(xiangqi.DefaultRules), 1, 120, seed*1000+uint64(g)) {
			p := gp.(*xiangqi.Position)
			if p.Status().Over() {
				continue
			}
			r, err := nnuedata.FromPosition(p)
			if err != nil {
				t.Fatal(err)
			}
			s := Sample{Squares: r.Squares, Side: r.Side}
			m := material(&s)
			r.SetScore(m)
			r.Result = int8(max(min(m, 1), -1))
			ms := p.GenerateMoves(nil)
			r.Move = uint16(ms[0])
			r.Depth = 1
			recs = append(recs, r)
		}
		games = append(games, recs)
	}
	return games
}

// testSamples is testGames' positions as samples.
func testSamples(t testing.TB, n int, seed uint64) []Sample {
	t.Helper()
	var out []Sample
	for _, g := range testGames(t, n, seed) {
		for _, r := range g {
			out = append(out, Sample{Squares: r.Squares, Score: r.Score, Result: r.Result, Side: r.Side})
		}
	}
	return out
}

// writeShards writes games into dir as shards of perShard games, and
// returns how many records it wrote.
func writeShards(t testing.TB, dir string, games [][]nnuedata.Record, perShard int, seed uint64) int {
	t.Helper()
	total := 0
	for seq := 0; seq*perShard < len(games); seq++ {
		h := nnuedata.Header{Game: "xiangqi", Seq: seq, Seed: seed, Budget: nnuedata.Budget{Depth: 1}, Eval: "classical"}
		var recs []nnuedata.Record
		for _, g := range games[seq*perShard : min((seq+1)*perShard, len(games))] {
			h.Games++
			h.GameRecords = append(h.GameRecords, len(g))
			recs = append(recs, g...)
		}
		if _, err := nnuedata.Write(dir, h, recs); err != nil {
			t.Fatal(err)
		}
		total += len(recs)
	}
	return total
}

// mateRecord makes r a mate score.
func mateRecord(r *nnuedata.Record) { r.SetScore(alphabeta.Mate - 5) }
