// Package onnx writes a network (net.Params) as a standard ONNX model that
// any ONNX runtime can load.
//
// The model has one input, planes [N,C,H,W] float32 with a symbolic batch
// dimension "N", and two outputs, policy (logits [N,A]) and value
// ([N,1], tanh). It uses opset 13 and only the operators Conv, Relu, Add,
// Flatten, Gemm and Tanh; a network with the win/draw/loss value head
// has a third output, wdl ([N,3], Softmax of the head's logits), and its
// value is W - L (a Gemm of wdl with the row 1, 0, -1) in place of the
// Tanh; batch normalisation (running statistics) is
// folded into each convolution's weights and bias, which both onnxruntime
// and onnx-go's gorgonia backend run at any batch size. The from-to policy
// head adds Reshape, Transpose and a batched MatMul, which onnxruntime
// runs and onnx-go (2-D MatMul only) does not. Weights are
// float32 initializers stored as little-endian raw_data. Model metadata
// names the game, the encoder version and the action-space size.
//
// The protobuf is written by hand with protowire: onnx-go's generated
// types are internal to that module.
package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/tabula-zero/tabula/net"
)

// Format constants of the written models.
const (
	IRVersion       = 7  // ONNX IR version (the one that introduced opset 13)
	Opset           = 13 // default-domain operator set
	Producer        = "tabula"
	ProducerVersion = "1" // graph layout version of this exporter

	InputName  = "planes" // [N,C,H,W] float32
	PolicyName = "policy" // [N,A] logits
	ValueName  = "value"  // [N,1] in [-1,1]
	WDLName    = "wdl"    // [N,3] win, draw, loss probabilities (the WDL head only)
	BatchDim   = "N"      // dim_param of the batch dimension

	// Metadata keys (ModelProto.metadata_props).
	KeyGame           = "game"
	KeyEncoderVersion = "encoder_version"
	KeyActionSpace    = "action_space"
	// KeyValueHead is "wdl" for a network with the WDL head; absent for
	// the scalar head, whose models are as before.
	KeyValueHead = "value_head"
)

// Metadata describes the exported model. Zero fields take the network's
// spec values; set fields must agree with the spec.
type Metadata struct {
	Game           string // game name ("connect4", ...)
	EncoderVersion int    // the game encoder's version
	ActionSpace    int    // size of the policy output
	// DocString is the model's doc_string (optional).
	DocString string
	// Extra holds more metadata_props (written in key order); it may not
	// redefine the three keys above.
	Extra map[string]string
}

// Export writes p as an ONNX model to w. Invalid parameters (wrong
// shapes, non-finite values, negative running variances) and metadata
// that disagrees with p's spec are errors; nothing is written then.
func Export(w io.Writer, p *net.Params, meta Metadata) error {
	b, err := Marshal(p, meta)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("onnx: writing model: %w", err)
	}
	return nil
}

// Marshal returns the ONNX model of p as bytes (see Export). The same
// parameters and metadata always give the same bytes.
func Marshal(p *net.Params, meta Metadata) ([]byte, error) {
	if p == nil {
		return nil, errors.New("onnx: nil params")
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("onnx: invalid params: %w", err)
	}
	if err := checkValues(p); err != nil {
		return nil, err
	}
	meta, err := resolve(meta, p.Spec)
	if err != nil {
		return nil, err
	}

	var m message
	m.int64(fModelIRVersion, IRVersion)
	m.string(fModelProducerName, Producer)
	m.string(fModelProducerVersion, ProducerVersion)
	if meta.DocString != "" {
		m.string(fModelDocString, meta.DocString)
	}
	m.message(fModelGraph, buildGraph(p))
	var opset message
	opset.string(fOpsetDomain, "")
	opset.int64(fOpsetVersion, Opset)
	m.message(fModelOpsetImport, opset)
	for _, kv := range metadataProps(meta, p.Spec) {
		var e message
		e.string(fEntryKey, kv[0])
		e.string(fEntryValue, kv[1])
		m.message(fModelMetadataProps, e)
	}
	return m, nil
}

func resolve(meta Metadata, s net.Spec) (Metadata, error) {
	if meta.Game == "" {
		meta.Game = s.Game
	} else if s.Game != "" && meta.Game != s.Game {
		return meta, fmt.Errorf("onnx: metadata game %q does not match the network's game %q", meta.Game, s.Game)
	}
	if meta.Game == "" {
		return meta, errors.New("onnx: no game name in the metadata or the network spec")
	}
	if meta.EncoderVersion == 0 {
		meta.EncoderVersion = s.EncoderVersion
	} else if s.EncoderVersion != 0 && meta.EncoderVersion != s.EncoderVersion {
		return meta, fmt.Errorf("onnx: metadata encoder version %d does not match the network's %d", meta.EncoderVersion, s.EncoderVersion)
	}
	if meta.ActionSpace == 0 {
		meta.ActionSpace = s.Actions
	} else if meta.ActionSpace != s.Actions {
		return meta, fmt.Errorf("onnx: metadata action space %d does not match the network's %d actions", meta.ActionSpace, s.Actions)
	}
	for k := range meta.Extra {
		switch k {
		case KeyGame, KeyEncoderVersion, KeyActionSpace, KeyValueHead:
			return meta, fmt.Errorf("onnx: extra metadata may not set %q", k)
		case "":
			return meta, errors.New("onnx: extra metadata with an empty key")
		}
	}
	return meta, nil
}

func metadataProps(meta Metadata, s net.Spec) [][2]string {
	props := [][2]string{
		{KeyGame, meta.Game},
		{KeyEncoderVersion, strconv.Itoa(meta.EncoderVersion)},
		{KeyActionSpace, strconv.Itoa(meta.ActionSpace)},
	}
	if s.WDLHead() {
		props = append(props, [2]string{KeyValueHead, s.ValueHead})
	}
	keys := make([]string, 0, len(meta.Extra))
	for k := range meta.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		props = append(props, [2]string{k, meta.Extra[k]})
	}
	return props
}

// checkValues rejects what would turn the model's outputs into NaN.
func checkValues(p *net.Params) error {
	finite := func(name string, xs []float32) error {
		for i, x := range xs {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("onnx: %s[%d] is %v", name, i, x)
			}
		}
		return nil
	}
	names := []string{"input conv"}
	for i := range p.Blocks {
		names = append(names, fmt.Sprintf("block %d conv a", i), fmt.Sprintf("block %d conv b", i))
	}
	names = append(names, "policy conv", "value conv")
	for i, c := range p.Layers() {
		for _, a := range []struct {
			what string
			xs   []float32
		}{{"weights", c.W}, {"gamma", c.Gamma}, {"beta", c.Beta}, {"running mean", c.Mean}, {"running variance", c.Var}} {
			if err := finite(names[i]+" "+a.what, a.xs); err != nil {
				return err
			}
		}
		for o, v := range c.Var {
			if float64(v)+net.BNEpsilon <= 0 {
				return fmt.Errorf("onnx: %s running variance[%d] = %v is negative", names[i], o, v)
			}
		}
	}
	for _, d := range []struct {
		name string
		d    *net.Dense
	}{{"policy fc", &p.PolicyFC}, {"value fc1", &p.ValueFC1}, {"value fc2", &p.ValueFC2}} {
		if err := finite(d.name+" weights", d.d.W); err != nil {
			return err
		}
		if err := finite(d.name+" bias", d.d.B); err != nil {
			return err
		}
	}
	if err := finite("policy from-to weights", p.FromTo.W); err != nil {
		return err
	}
	return finite("policy from-to bias", p.FromTo.B)
}

// fold merges batch normalisation into the convolution:
// bn(conv(x)) = conv(x)*s + (beta - mean*s) with s = gamma/sqrt(var+eps),
// so W' = W*s per output channel and bias = beta - mean*s.
func fold(c *net.ConvBN) (w, bias []float32) {
	w = make([]float32, len(c.W))
	bias = make([]float32, c.Out)
	per := c.In * c.K * c.K
	for o := 0; o < c.Out; o++ {
		s := float64(c.Gamma[o]) / math.Sqrt(float64(c.Var[o])+net.BNEpsilon)
		for i := o * per; i < (o+1)*per; i++ {
			w[i] = float32(float64(c.W[i]) * s)
		}
		bias[o] = float32(float64(c.Beta[o]) - float64(c.Mean[o])*s)
	}
	return w, bias
}

// graph collects nodes and initializers in topological order.
type graph struct {
	nodes, inits []message
}

func (g *graph) initializer(name string, data []float32, dims ...int) string {
	var t message
	for _, d := range dims {
		t.int64(fTensorDims, int64(d))
	}
	t.int64(fTensorDataType, dataTypeFloat)
	t.string(fTensorName, name)
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	t.bytes(fTensorRawData, raw)
	g.inits = append(g.inits, t)
	return name
}

// shape adds an int64 initializer holding a Reshape's target shape.
func (g *graph) shape(name string, dims ...int) string {
	var t message
	t.int64(fTensorDims, int64(len(dims)))
	t.int64(fTensorDataType, dataTypeInt64)
	t.string(fTensorName, name)
	raw := make([]byte, 8*len(dims))
	for i, d := range dims {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(int64(d)))
	}
	t.bytes(fTensorRawData, raw)
	g.inits = append(g.inits, t)
	return name
}

// fromTo adds the from-to policy head on features f [N,c,h,w]: with F
// the features as [N,c,hw], the logits are Flatten(F^T (W F)) + B.
func (g *graph) fromTo(out, f string, ft *net.FromTo, hw int) string {
	c := ft.C
	flat := g.node("Reshape", "policy.features", []string{f, g.shape("policy.features.shape", 0, c, hw)})
	wf := g.node("MatMul", "policy.fromto.wf", []string{g.initializer("policy.fromto.weight", ft.W, c, c), flat})
	ftr := g.node("Transpose", "policy.features.t", []string{flat}, intsAttr("perm", 0, 2, 1))
	pairs := g.flatten("policy.fromto.pairs", g.node("MatMul", "policy.fromto.ftwf", []string{ftr, wf}))
	return g.node("Add", out, []string{pairs, g.initializer("policy.fromto.bias", ft.B, hw*hw)})
}

// node adds a node named after its single output and returns that output.
func (g *graph) node(op, out string, inputs []string, attrs ...message) string {
	var n message
	for _, in := range inputs {
		n.string(fNodeInput, in)
	}
	n.string(fNodeOutput, out)
	n.string(fNodeName, out)
	n.string(fNodeOpType, op)
	for _, a := range attrs {
		n.message(fNodeAttribute, a)
	}
	g.nodes = append(g.nodes, n)
	return out
}

func intAttr(name string, v int64) message {
	var a message
	a.string(fAttrName, name)
	a.int64(fAttrI, v)
	a.int64(fAttrType, attrInt)
	return a
}

func intsAttr(name string, vs ...int64) message {
	var a message
	a.string(fAttrName, name)
	for _, v := range vs {
		a.int64(fAttrInts, v)
	}
	a.int64(fAttrType, attrInts)
	return a
}

func floatAttr(name string, v float32) message {
	var a message
	a.string(fAttrName, name)
	a.float32(fAttrF, math.Float32bits(v))
	a.int64(fAttrType, attrFloat)
	return a
}

// conv adds a k x k convolution (stride 1, padding k/2) with folded BN.
func (g *graph) conv(name, x string, c *net.ConvBN) string {
	w, b := fold(c)
	k, pad := int64(c.K), int64(c.K/2)
	return g.node("Conv", name, []string{
		x,
		g.initializer(name+".weight", w, c.Out, c.In, c.K, c.K),
		g.initializer(name+".bias", b, c.Out),
	}, intsAttr("kernel_shape", k, k), intsAttr("pads", pad, pad, pad, pad), intsAttr("strides", 1, 1), intsAttr("dilations", 1, 1))
}

// dense adds a fully connected layer y = x W^T + b as a Gemm.
func (g *graph) dense(name, out, x string, d *net.Dense) string {
	return g.node("Gemm", out, []string{
		x,
		g.initializer(name+".weight", d.W, d.Out, d.In),
		g.initializer(name+".bias", d.B, d.Out),
	}, floatAttr("alpha", 1), floatAttr("beta", 1), intAttr("transB", 1))
}

func (g *graph) relu(x string) string { return g.node("Relu", x+".relu", []string{x}) }

func (g *graph) flatten(name, x string) string {
	return g.node("Flatten", name, []string{x}, intAttr("axis", 1))
}

// dim is one dimension of a value's shape: a symbolic name or a size.
type dim struct {
	param string
	value int
}

func valueInfo(name string, dims ...dim) message {
	var shape message
	for _, d := range dims {
		var dm message
		if d.param != "" {
			dm.string(fDimParam, d.param)
		} else {
			dm.int64(fDimValue, int64(d.value))
		}
		shape.message(fShapeDim, dm)
	}
	var tt message
	tt.int64(fTensorTypeElem, dataTypeFloat)
	tt.message(fTensorTypeShape, shape)
	var typ message
	typ.message(fTypeTensorType, tt)
	var v message
	v.string(fValueInfoName, name)
	v.message(fValueInfoType, typ)
	return v
}

func buildGraph(p *net.Params) message {
	var g graph
	h := g.relu(g.conv("input.conv", InputName, &p.Input))
	for i := range p.Blocks {
		b := &p.Blocks[i]
		pre := fmt.Sprintf("block%d", i)
		y := g.relu(g.conv(pre+".a.conv", h, &b.A))
		y = g.conv(pre+".b.conv", y, &b.B)
		h = g.relu(g.node("Add", pre+".add", []string{y, h}))
	}
	pol := g.relu(g.conv("policy.conv", h, &p.PolicyConv))
	if p.Spec.FromToHead() {
		g.fromTo(PolicyName, pol, &p.FromTo, p.Spec.Height*p.Spec.Width)
	} else {
		g.dense("policy.fc", PolicyName, g.flatten("policy.flatten", pol), &p.PolicyFC)
	}
	v := g.flatten("value.flatten", g.relu(g.conv("value.conv", h, &p.ValueConv)))
	v = g.relu(g.dense("value.fc1", "value.fc1", v, &p.ValueFC1))
	v = g.dense("value.fc2", "value.fc2", v, &p.ValueFC2)
	if p.Spec.WDLHead() {
		wdl := g.node("Softmax", WDLName, []string{v}, intAttr("axis", 1))
		g.dense("value.wdl", ValueName, wdl, &net.Dense{Out: 1, In: 3, W: []float32{1, 0, -1}, B: []float32{0}})
	} else {
		g.node("Tanh", ValueName, []string{v})
	}

	s := p.Spec
	n := dim{param: BatchDim}
	var gm message
	for _, nd := range g.nodes {
		gm.message(fGraphNode, nd)
	}
	name := "tabula"
	if s.Game != "" {
		name += "_" + s.Game
	}
	gm.string(fGraphName, name)
	for _, t := range g.inits {
		gm.message(fGraphInitializer, t)
	}
	gm.string(fGraphDocString, fmt.Sprintf("residual policy/value network: %d blocks x %d filters, input %dx%dx%d, %d actions; BN folded into the convolutions",
		s.Blocks, s.Filters, s.Channels, s.Height, s.Width, s.Actions))
	gm.message(fGraphInput, valueInfo(InputName, n, dim{value: s.Channels}, dim{value: s.Height}, dim{value: s.Width}))
	gm.message(fGraphOutput, valueInfo(PolicyName, n, dim{value: s.Actions}))
	gm.message(fGraphOutput, valueInfo(ValueName, n, dim{value: 1}))
	if s.WDLHead() {
		gm.message(fGraphOutput, valueInfo(WDLName, n, dim{value: 3}))
	}
	return gm
}
