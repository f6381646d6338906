package data

import "testing"

// FuzzDecode: arbitrary bytes never panic or hang the shard reader.
func FuzzDecode(f *testing.F) {
	g, samples := samplesOf(f, "connect4", 2, 9)
	good, err := Encode(header(g, 1, 1), samples)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte("TABSHRD\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, s, err := Decode(b)
		if err == nil && len(s) != h.Samples {
			t.Fatalf("decoded %d samples, header says %d", len(s), h.Samples)
		}
	})
}
