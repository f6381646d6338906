// Package datatest makes replay shards for tests.
package datatest

import (
	"testing"

	"github.com/tabula-zero/tabula/data"
	"github.com/tabula-zero/tabula/game"
	"github.com/tabula-zero/tabula/game/gametest"
)

// ShardBytes encodes a small shard of positions of game name from random
// play, for worker w with sequence number seq, and returns its file name
// and bytes.
func ShardBytes(t testing.TB, name, w string, seq int) (string, []byte) {
	t.Helper()
	return ShardBytesOf(t, name, w, seq, 1)
}

// ShardBytesOf is ShardBytes of a shard that claims to come from
// generation gen.
func ShardBytesOf(t testing.TB, name, w string, seq, gen int) (string, []byte) {
	t.Helper()
	g, err := game.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := g.New(nil)
	var samples []data.Sample
	for i, p := range gametest.RandomPositions(start, 5, 20, uint64(seq)+7) {
		ms := p.GenerateMoves(nil)
		if len(ms) == 0 {
			continue
		}
		samples = append(samples, data.Sample{Position: p.String(), Ply: p.Ply(), GameID: uint64(seq*100 + i),
			Policy: []data.PolicyEntry{{Action: g.Encoder.ActionIndex(p, ms[0]), Prob: 1}}})
	}
	h := data.Header{Game: g.Name, EncoderVersion: g.Encoder.Version(), Generation: gen, Worker: w, Seq: seq, Samples: len(samples)}
	b, err := data.Encode(h, samples)
	if err != nil {
		t.Fatal(err)
	}
	return h.Name(), b
}
