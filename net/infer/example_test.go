package infer_test

import (
	"fmt"
	"sync"

	"github.com/tabula-zero/tabula/configs"
	"github.com/tabula-zero/tabula/game"
	_ "github.com/tabula-zero/tabula/game/connect4"
	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/infer"
)

// One Net per goroutine: New once, then a Clone for every other worker.
// The clones share the folded weights and own their buffers.
func Example() {
	g, err := game.Lookup("connect4")
	if err != nil {
		panic(err)
	}
	spec, err := configs.PresetSpec(g.Name)
	if err != nil {
		panic(err)
	}
	params, err := net.NewParams(spec, 1) // or the params of a checkpoint
	if err != nil {
		panic(err)
	}
	const batch = 16
	first, err := infer.New(params, batch)
	if err != nil {
		panic(err)
	}
	size := spec.Channels * spec.Height * spec.Width
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		n := first
		if w > 0 {
			n = first.Clone()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			planes := make([]float32, batch*size) // filled by the game's encoder
			policy := make([]float32, batch*spec.Actions)
			value := make([]float32, batch)
			if err := n.Forward(planes, batch, policy, value); err != nil {
				panic(err)
			}
		}()
	}
	wg.Wait()
	fmt.Println(spec.Actions, "logits and a value per position, batches up to", first.MaxBatch())
	// Output: 7 logits and a value per position, batches up to 16
}
