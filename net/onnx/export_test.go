package onnx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tabula-zero/tabula/net"
)

// fields decodes one protobuf message into its fields by number: varints
// as uint64, fixed32 as uint32, length-delimited fields as []byte.
func fields(t *testing.T, b []byte) map[protowire.Number][]any {
	t.Helper()
	out := map[protowire.Number][]any{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v any
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			v, n = protowire.ConsumeFixed32(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			t.Fatalf("field %d: unexpected wire type %v", num, typ)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		out[num] = append(out[num], v)
	}
	return out
}

func str(f map[protowire.Number][]any, num protowire.Number) string {
	if len(f[num]) == 0 {
		return ""
	}
	return string(f[num][0].([]byte))
}

func num(f map[protowire.Number][]any, n protowire.Number) int64 {
	if len(f[n]) == 0 {
		return 0
	}
	return int64(f[n][0].(uint64))
}

// shapeOf returns a ValueInfoProto's name and dims ("N" for dim_param N).
func shapeOf(t *testing.T, vi []byte) (string, []string) {
	f := fields(t, vi)
	typ := fields(t, f[fValueInfoType][0].([]byte))
	tt := fields(t, typ[fTypeTensorType][0].([]byte))
	if num(tt, fTensorTypeElem) != dataTypeFloat {
		t.Errorf("%s: elem type %d", str(f, fValueInfoName), num(tt, fTensorTypeElem))
	}
	var dims []string
	for _, d := range fields(t, tt[fTensorTypeShape][0].([]byte))[fShapeDim] {
		df := fields(t, d.([]byte))
		if p := str(df, fDimParam); p != "" {
			dims = append(dims, p)
		} else {
			dims = append(dims, strconv.FormatInt(num(df, fDimValue), 10))
		}
	}
	return str(f, fValueInfoName), dims
}

func TestModelStructure(t *testing.T) {
	p := randomParams(t, tinySpec, 1)
	model, err := Marshal(p, Metadata{DocString: "test model", Extra: map[string]string{"source": "unit test", "a": "first"}})
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, model)
	if v := num(m, fModelIRVersion); v != 7 {
		t.Errorf("ir_version %d", v)
	}
	if s := str(m, fModelProducerName); s != "tabula" {
		t.Errorf("producer %q", s)
	}
	if s := str(m, fModelDocString); s != "test model" {
		t.Errorf("doc_string %q", s)
	}
	if len(m[fModelOpsetImport]) != 1 {
		t.Fatalf("%d opset imports", len(m[fModelOpsetImport]))
	}
	op := fields(t, m[fModelOpsetImport][0].([]byte))
	if str(op, fOpsetDomain) != "" || num(op, fOpsetVersion) != 13 {
		t.Errorf("opset %q %d", str(op, fOpsetDomain), num(op, fOpsetVersion))
	}
	var props [][2]string
	for _, e := range m[fModelMetadataProps] {
		ef := fields(t, e.([]byte))
		props = append(props, [2]string{str(ef, fEntryKey), str(ef, fEntryValue)})
	}
	wantProps := [][2]string{{"game", "connect4"}, {"encoder_version", "1"}, {"action_space", "7"}, {"a", "first"}, {"source", "unit test"}}
	if !slices.Equal(props, wantProps) {
		t.Errorf("metadata %v, want %v", props, wantProps)
	}

	g := fields(t, m[fModelGraph][0].([]byte))
	if len(g[fGraphInput]) != 1 || len(g[fGraphOutput]) != 2 {
		t.Fatalf("%d inputs, %d outputs", len(g[fGraphInput]), len(g[fGraphOutput]))
	}
	for i, want := range []struct {
		vi   []byte
		name string
		dims []string
	}{
		{g[fGraphInput][0].([]byte), "planes", []string{"N", "3", "4", "5"}},
		{g[fGraphOutput][0].([]byte), "policy", []string{"N", "7"}},
		{g[fGraphOutput][1].([]byte), "value", []string{"N", "1"}},
	} {
		name, dims := shapeOf(t, want.vi)
		if name != want.name || !slices.Equal(dims, want.dims) {
			t.Errorf("value %d: %s %v, want %s %v", i, name, dims, want.name, want.dims)
		}
	}

	// Initializers: raw float32 data of the right size, unique names.
	inits := map[string]int{}
	for _, b := range g[fGraphInitializer] {
		f := fields(t, b.([]byte))
		name := str(f, fTensorName)
		if _, dup := inits[name]; dup {
			t.Errorf("initializer %s twice", name)
		}
		if num(f, fTensorDataType) != dataTypeFloat {
			t.Errorf("%s: data type %d", name, num(f, fTensorDataType))
		}
		size := 1
		for _, d := range f[fTensorDims] {
			size *= int(d.(uint64))
		}
		if raw := f[fTensorRawData][0].([]byte); len(raw) != 4*size {
			t.Errorf("%s: %d raw bytes for %d floats", name, len(raw), size)
		}
		inits[name] = size
	}
	// 2 blocks x 2 convs + 3 convs, 3 dense layers: weight and bias each.
	if len(inits) != 2*(2*2+3+3) {
		t.Errorf("%d initializers", len(inits))
	}
	if inits["policy.fc.weight"] != 7*2*4*5 || inits["input.conv.weight"] != 8*3*3*3 {
		t.Errorf("initializer sizes %v", inits)
	}
	// The folded input conv bias is beta - mean*gamma/sqrt(var+eps).
	for _, b := range g[fGraphInitializer] {
		f := fields(t, b.([]byte))
		if str(f, fTensorName) != "input.conv.bias" {
			continue
		}
		raw := f[fTensorRawData][0].([]byte)
		c := &p.Input
		for o := 0; o < c.Out; o++ {
			got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*o:]))
			want := float64(c.Beta[o]) - float64(c.Mean[o])*float64(c.Gamma[o])/math.Sqrt(float64(c.Var[o])+net.BNEpsilon)
			if math.Abs(float64(got)-want) > 1e-6 {
				t.Errorf("input bias[%d] = %v, want %v", o, got, want)
			}
		}
	}

	// Nodes: only the promised operators; every input is defined earlier.
	defined := map[string]bool{"planes": true}
	for name := range inits {
		defined[name] = true
	}
	ops := map[string]int{}
	for _, b := range g[fGraphNode] {
		f := fields(t, b.([]byte))
		op := str(f, fNodeOpType)
		ops[op]++
		for _, in := range f[fNodeInput] {
			if !defined[string(in.([]byte))] {
				t.Errorf("%s node %s reads %s before it is defined", op, str(f, fNodeName), in)
			}
		}
		for _, out := range f[fNodeOutput] {
			if defined[string(out.([]byte))] {
				t.Errorf("%s defined twice", out)
			}
			defined[string(out.([]byte))] = true
		}
	}
	wantOps := map[string]int{"Conv": 7, "Relu": 1 + 2*2 + 3, "Add": 2, "Flatten": 2, "Gemm": 3, "Tanh": 1}
	if len(ops) != len(wantOps) {
		t.Errorf("operators %v, want %v", ops, wantOps)
	}
	for op, n := range wantOps {
		if ops[op] != n {
			t.Errorf("%d %s nodes, want %d (all: %v)", ops[op], op, n, ops)
		}
	}
	if !defined["policy"] || !defined["value"] {
		t.Error("outputs not produced by any node")
	}
}

// The WDL head's model: a third output wdl [N,3] from a Softmax, the
// value a Gemm of it in place of the Tanh, and the head named in the
// metadata.
func TestModelStructureWDL(t *testing.T) {
	spec := tinySpec
	spec.ValueHead = net.ValueWDL
	model, err := Marshal(randomParams(t, spec, 1), Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, model)
	var props [][2]string
	for _, e := range m[fModelMetadataProps] {
		ef := fields(t, e.([]byte))
		props = append(props, [2]string{str(ef, fEntryKey), str(ef, fEntryValue)})
	}
	if want := [][2]string{{"game", "connect4"}, {"encoder_version", "1"}, {"action_space", "7"}, {"value_head", "wdl"}}; !slices.Equal(props, want) {
		t.Errorf("metadata %v, want %v", props, want)
	}
	g := fields(t, m[fModelGraph][0].([]byte))
	if len(g[fGraphOutput]) != 3 {
		t.Fatalf("%d outputs, want 3", len(g[fGraphOutput]))
	}
	for i, want := range []struct {
		name string
		dims []string
	}{{"policy", []string{"N", "7"}}, {"value", []string{"N", "1"}}, {"wdl", []string{"N", "3"}}} {
		name, dims := shapeOf(t, g[fGraphOutput][i].([]byte))
		if name != want.name || !slices.Equal(dims, want.dims) {
			t.Errorf("output %d: %s %v, want %s %v", i, name, dims, want.name, want.dims)
		}
	}
	ops := map[string]int{}
	for _, b := range g[fGraphNode] {
		ops[str(fields(t, b.([]byte)), fNodeOpType)]++
	}
	if ops["Softmax"] != 1 || ops["Tanh"] != 0 || ops["Gemm"] != 4 {
		t.Errorf("operators %v: want one Softmax, no Tanh, four Gemm", ops)
	}
}

func TestMarshalDeterministic(t *testing.T) {
	p := randomParams(t, tinySpec, 4)
	meta := Metadata{Extra: map[string]string{"z": "1", "b": "2", "m": "3"}}
	a, err := Marshal(p, meta)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		b, err := Marshal(p, meta)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("two exports of the same network differ")
		}
	}
	var buf bytes.Buffer
	if err := Export(&buf, p, meta); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), a) {
		t.Error("Export and Marshal differ")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(p *net.Params, m *Metadata)
		want   string
	}{
		{"short weights", func(p *net.Params, m *Metadata) { p.Blocks[1].B.W = p.Blocks[1].B.W[1:] }, "block 1 conv b has the wrong shape"},
		{"missing block", func(p *net.Params, m *Metadata) { p.Blocks = p.Blocks[:1] }, "1 blocks, spec says 2"},
		{"bad spec", func(p *net.Params, m *Metadata) { p.Spec.Filters = 0 }, "filters"},
		{"dense shape", func(p *net.Params, m *Metadata) { p.ValueFC2.B = nil }, "value fc2 has the wrong shape"},
		{"nan weight", func(p *net.Params, m *Metadata) { p.PolicyFC.W[3] = float32(math.NaN()) }, "policy fc weights[3] is NaN"},
		{"inf mean", func(p *net.Params, m *Metadata) { p.Blocks[0].A.Mean[2] = float32(math.Inf(-1)) }, "block 0 conv a running mean[2] is -Inf"},
		{"negative variance", func(p *net.Params, m *Metadata) { p.ValueConv.Var[1] = -1 }, "value conv running variance[1] = -1 is negative"},
		{"game mismatch", func(p *net.Params, m *Metadata) { m.Game = "xiangqi" }, `metadata game "xiangqi" does not match the network's game "connect4"`},
		{"no game", func(p *net.Params, m *Metadata) { p.Spec.Game = "" }, "no game name"},
		{"encoder mismatch", func(p *net.Params, m *Metadata) { m.EncoderVersion = 9 }, "encoder version 9 does not match the network's 1"},
		{"actions mismatch", func(p *net.Params, m *Metadata) { m.ActionSpace = 8 }, "action space 8 does not match the network's 7 actions"},
		{"reserved extra", func(p *net.Params, m *Metadata) { m.Extra = map[string]string{"game": "x"} }, `extra metadata may not set "game"`},
		{"empty extra key", func(p *net.Params, m *Metadata) { m.Extra = map[string]string{"": "x"} }, "empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := randomParams(t, tinySpec, 1)
			var meta Metadata
			tc.mutate(p, &meta)
			var buf bytes.Buffer
			err := Export(&buf, p, meta)
			if err == nil || !strings.HasPrefix(err.Error(), "onnx: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting with \"onnx: \" and containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
		})
	}
	if err := Export(&bytes.Buffer{}, nil, Metadata{}); err == nil || err.Error() != "onnx: nil params" {
		t.Errorf("nil params: %v", err)
	}
	if err := Export(failWriter{}, randomParams(t, tinySpec, 1), Metadata{}); err == nil || !strings.Contains(err.Error(), "onnx: writing model: disk full") {
		t.Errorf("failing writer: %v", err)
	}
	// Matching metadata is fine.
	p := randomParams(t, tinySpec, 1)
	if _, err := Marshal(p, Metadata{Game: "connect4", EncoderVersion: 1, ActionSpace: 7}); err != nil {
		t.Errorf("matching metadata: %v", err)
	}
}
