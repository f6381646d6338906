package tablebase

import (
	"context"
	"testing"
)

// BenchmarkBuild builds a mid-sized sub-game (5 million entries).
func BenchmarkBuild(b *testing.B) {
	for b.Loop() {
		if _, err := Build(context.Background(), Material{2, 1, 1}, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
