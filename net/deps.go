package net

// Pinned dependencies of the network work in progress (the gorgonia model,
// ONNX export and its onnx-go re-import test). This file keeps them in
// go.mod until the code that uses them lands; delete it then.
import (
	_ "github.com/owulveryck/onnx-go"
	_ "github.com/owulveryck/onnx-go/backend/x/gorgonnx"
	_ "go4.org/unsafe/assume-no-moving-gc"
	_ "google.golang.org/protobuf/encoding/protowire"
	_ "gorgonia.org/gorgonia"
	_ "gorgonia.org/tensor"
)
