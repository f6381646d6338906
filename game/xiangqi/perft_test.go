package xiangqi

import "testing"

func TestQuickPerft(t *testing.T) {
	p := New(DefaultRules)
	for d, want := range []uint64{44, 1920, 79666, 3290240} {
		if got := p.Perft(d + 1); got != want {
			t.Errorf("perft(%d)=%d want %d", d+1, got, want)
		}
	}
	q, err := Parse("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1", DefaultRules)
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range []uint64{38, 1128, 43929, 1339047} {
		if got := q.Perft(d + 1); got != want {
			t.Errorf("perft(%d)=%d want %d", d+1, got, want)
		}
	}
}

func BenchmarkPerft5(b *testing.B) {
	p := New(DefaultRules)
	for b.Loop() {
		if n := p.Perft(5); n != 133312995 {
			b.Fatalf("perft(5)=%d", n)
		}
	}
}
