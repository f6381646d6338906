package uci_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tabula-zero/tabula/uci"
)

// The tests register a counting game "count": a move "k" adds k to a
// number, and reaching 10 wins.
func ExampleEngine() {
	in := strings.NewReader("position startpos moves 1 2\ngo perft 2\nquit\n")
	e, err := uci.NewEngine(in, os.Stdout, uci.WithVariant("count"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := e.Run(context.Background()); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1: 2
	// 2: 2
	//
	// Nodes searched: 4
}
