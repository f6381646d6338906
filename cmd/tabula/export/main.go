// Package export is `tabula export`: it writes a network as a standard
// ONNX model.
//
//	tabula export -checkpoint FILE -o model.onnx [-samples N -samples-out FILE.json]
//	tabula export -new GAME [-seed S] -o model.onnx [-samples N -samples-out FILE.json]
//
// The model takes planes [N,C,H,W] float32 (dynamic batch N) and returns
// policy logits [N,A] and value [N,1]; its metadata names the game, the
// encoder version and the action-space size (see package net/onnx).
// -new exports a freshly initialised preset network. -samples writes N
// positions from seeded random play with the native network's outputs as
// JSON ({"fen", "shape", "planes", "policy", "value"} per position), so
// that any runtime can check the model. Files are written atomically.
package export

import (
	"context"
	"io"
)

// Run is `tabula export`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(args, stdout)
}
