// Command export writes a network as a standard ONNX model.
//
//	export -checkpoint FILE -o model.onnx [-samples N -samples-out FILE.json]
//	export -new GAME [-seed S] -o model.onnx [-samples N -samples-out FILE.json]
//
// The model takes planes [N,C,H,W] float32 (dynamic batch N) and returns
// policy logits [N,A] and value [N,1]; its metadata names the game, the
// encoder version and the action-space size (see package net/onnx).
// -new exports a freshly initialised preset network. -samples writes N
// positions from seeded random play with the native network's outputs as
// JSON ({"fen", "shape", "planes", "policy", "value"} per position), so
// that any runtime can check the model. Files are written atomically.
package main

import (
	"os"

	"github.com/tabula-zero/tabula/internal/cliflag"
)

func main() {
	cliflag.Exit("export", run(os.Args[1:], os.Stdout))
}
