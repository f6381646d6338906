package arena

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// synthetic plays a round robin between players of the given true Elo
// (draws up to 30% of the games, taken evenly from both sides' wins).
func synthetic(rng *rand.Rand, elo map[string]float64, perPair int) []Outcome {
	var names []string
	for n := range elo {
		names = append(names, n)
	}
	// Map order is random: sort for a reproducible schedule.
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[j] < names[i] {
				names[i], names[j] = names[j], names[i]
			}
		}
	}
	var out []Outcome
	for i, a := range names {
		for _, b := range names[i+1:] {
			s := ScoreFromElo(elo[a] - elo[b])
			for k := range perPair {
				first, second, sf := a, b, s
				if k%2 == 1 {
					first, second, sf = b, a, 1-s
				}
				draw := min(0.3, 2*sf, 2*(1-sf)) // keeps the mean score sf
				pw := sf - draw/2
				x := rng.Float64()
				score := 0.0
				switch {
				case x < pw:
					score = 1
				case x < pw+draw:
					score = 0.5
				}
				out = append(out, Outcome{First: first, Second: second, Score: score})
			}
		}
	}
	return out
}

func TestRatingsRecoverStrengths(t *testing.T) {
	truth := map[string]float64{"p0": 0, "p200": 200, "p400": 400}
	games := synthetic(rand.New(rand.NewPCG(3, 4)), truth, 3000)
	rows, err := Ratings(games, RatingOptions{Anchor: "p0"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteRatings(&buf, rows, "p0")
	t.Logf("\n%s", buf.String())
	if rows[0].Name != "p400" || rows[1].Name != "p200" || rows[2].Name != "p0" {
		t.Fatalf("order %v", rows)
	}
	for _, r := range rows {
		if math.Abs(r.Elo-truth[r.Name]) > 25 {
			t.Errorf("%s: %.1f, true %v", r.Name, r.Elo, truth[r.Name])
		}
		if r.Name != "p0" && (r.Err95 <= 0 || r.Err95 > 25) {
			t.Errorf("%s: +- %.1f", r.Name, r.Err95)
		}
		if !r.Connected || r.Games != 6000 {
			t.Errorf("%s: connected %v, %d games", r.Name, r.Connected, r.Games)
		}
	}
	if rows[2].Elo != 0 {
		t.Errorf("anchor at %v", rows[2].Elo)
	}
	// Another anchor and value shift every rating by the same amount.
	rows2, err := Ratings(games, RatingOptions{Anchor: "p400", AnchorElo: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if d := rows2[i].Elo - rows[i].Elo; math.Abs(d-(1000-rows[0].Elo)) > 1e-6 {
			t.Errorf("%s: shift %v", rows[i].Name, d)
		}
	}
}

func TestRatingsMatchPairElo(t *testing.T) {
	// Two players only: without a prior the fit is the match's Elo.
	games := []Outcome{}
	for i := range 60 {
		var s float64
		switch {
		case i < 36:
			s = 1
		case i < 41:
			s = 0.5
		}
		games = append(games, Outcome{First: "PPAP", Second: "PPA", Score: s})
	}
	rows, err := Ratings(games, RatingOptions{Anchor: "PPA", PriorDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	want := Score{36, 5, 19}.Elo()
	if rows[0].Name != "PPAP" || math.Abs(rows[0].Elo-want) > 1e-6 {
		t.Fatalf("PPAP %.4f, the match says %.4f", rows[0].Elo, want)
	}
}

func TestRatingsEdgeCases(t *testing.T) {
	// A sweep: finite with the default prior, an error without.
	sweep := []Outcome{{"ab", "random", 1}, {"random", "ab", 0}, {"ab", "random", 1}}
	rows, err := Ratings(sweep, RatingOptions{Anchor: "random"})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Name != "ab" || math.IsInf(rows[0].Elo, 0) || rows[0].Elo < 300 {
		t.Fatalf("sweep: %+v", rows)
	}
	if _, err := Ratings(sweep, RatingOptions{Anchor: "random", PriorDraws: -1}); err == nil {
		t.Fatal("a sweep without a prior must be an error")
	}
	// Two groups that never met: the anchor's group is connected.
	two := []Outcome{{"a", "b", 1}, {"b", "a", 0.5}, {"c", "d", 0}, {"d", "c", 1}}
	rows, err = Ratings(two, RatingOptions{Anchor: "a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Connected != (r.Name == "a" || r.Name == "b") {
			t.Errorf("%s connected %v", r.Name, r.Connected)
		}
	}
	var buf bytes.Buffer
	WriteRatings(&buf, rows, "a")
	if !strings.Contains(buf.String(), "not connected") || !strings.Contains(buf.String(), "(anchor)") {
		t.Errorf("table:\n%s", buf.String())
	}
	for _, bad := range [][]Outcome{nil, {{"a", "a", 1}}, {{"a", "b", 0.7}}} {
		if _, err := Ratings(bad, RatingOptions{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := Ratings(two, RatingOptions{Anchor: "zed"}); err == nil {
		t.Error("unknown anchor accepted")
	}
}

func TestReadRecordsTornLine(t *testing.T) {
	good := `{"variant":"connect4","a":"x","b":"y","first":"x","second":"y","result":"1-0"}` + "\n"
	recs, err := parseRecords([]byte(good + good + `{"variant":"conn`))
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if _, err := parseRecords([]byte(good + "garbage\n" + good)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("bad middle line: %v", err)
	}
	if _, err := parseRecords([]byte(`{"first":"x","second":"y","result":"2-0"}` + "\n")); err == nil {
		t.Fatal("bad result accepted")
	}
}

func TestDefaultAnchor(t *testing.T) {
	recs := func(pairs ...string) []Record {
		var out []Record
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, Record{First: pairs[i], Second: pairs[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		recs []Record
		want string
	}{
		{recs("net:b", "ab:depth=4", "ab:depth=2", "random"), "ab:depth=2"},
		{recs("net:b", "random", "mcts:x", "net:a"), "random"},
		{recs("net:b", "mcts:x"), "mcts:x"},
		{nil, ""},
	} {
		if got := DefaultAnchor(c.recs); got != c.want {
			t.Errorf("%v: anchor %q, want %q", c.recs, got, c.want)
		}
	}
}

func TestParseSPRT(t *testing.T) {
	s, err := ParseSPRT("0, 10")
	if err != nil || *s != (SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}) {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = ParseSPRT("-5,5,0.01,0.1")
	if err != nil || *s != (SPRT{Elo0: -5, Elo1: 5, Alpha: 0.01, Beta: 0.1}) {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range []string{"", "5", "1,2,3", "a,5", "5,0", "0,5,2,0.05"} {
		if _, err := ParseSPRT(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
