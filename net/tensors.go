package net

import "fmt"

// ParamInfo describes one trainable tensor of a network.
type ParamInfo struct {
	// Name is "input.w", "block3.a.gamma", "policy.fc.b", ...
	Name string
	// Shape in the Params layout: [out in k k] for convolution weights,
	// [out in] for dense weights, [out] for BN scale and shift and for
	// biases.
	Shape []int
	// Decay reports whether weight decay applies: convolution and dense
	// weights, not BN gamma/beta and not biases.
	Decay bool
}

// Size is the number of elements of the tensor.
func (pi ParamInfo) Size() int {
	n := 1
	for _, d := range pi.Shape {
		n *= d
	}
	return n
}

// ParamTensors lists the trainable tensors of a network of this shape in
// their fixed order, the order of net/train.State.Momentum and
// of a checkpoint's optimizer state:
//
//	input.{w,gamma,beta}
//	block<i>.a.{w,gamma,beta}, block<i>.b.{w,gamma,beta}   for i = 0..Blocks-1
//	policy.conv.{w,gamma,beta}, policy.fc.{w,b}                (policy.fromto.{w,b} with the from-to head)
//	value.conv.{w,gamma,beta}, value.fc1.{w,b}, value.fc2.{w,b}         (value.fc2 three logits wide with the WDL head)
//
// BN running statistics are not trainable and are not listed; they travel
// in Params.
func (s Spec) ParamTensors() []ParamInfo {
	var ps []ParamInfo
	conv := func(name string, out, in, k int) {
		ps = append(ps,
			ParamInfo{name + ".w", []int{out, in, k, k}, true},
			ParamInfo{name + ".gamma", []int{out}, false},
			ParamInfo{name + ".beta", []int{out}, false})
	}
	dense := func(name string, out, in int) {
		ps = append(ps,
			ParamInfo{name + ".w", []int{out, in}, true},
			ParamInfo{name + ".b", []int{out}, false})
	}
	hw := s.Height * s.Width
	conv("input", s.Filters, s.Channels, 3)
	for i := 0; i < s.Blocks; i++ {
		conv(fmt.Sprintf("block%d.a", i), s.Filters, s.Filters, 3)
		conv(fmt.Sprintf("block%d.b", i), s.Filters, s.Filters, 3)
	}
	conv("policy.conv", s.PolicyChannels, s.Filters, 1)
	if s.FromToHead() {
		ps = append(ps,
			ParamInfo{"policy.fromto.w", []int{s.PolicyChannels, s.PolicyChannels}, true},
			ParamInfo{"policy.fromto.b", []int{hw * hw}, false})
	} else {
		dense("policy.fc", s.Actions, s.PolicyChannels*hw)
	}
	conv("value.conv", s.ValueChannels, s.Filters, 1)
	dense("value.fc1", s.ValueHidden, s.ValueChannels*hw)
	dense("value.fc2", s.ValueOutputs(), s.ValueHidden)
	return ps
}

// ForwardFLOPs is the number of floating-point operations of one
// position's forward pass, counting the multiply-adds of the convolutions and dense layers
// as two operations each (batch norm, activations and biases are not
// counted).
func (s Spec) ForwardFLOPs() int64 {
	hw := int64(s.Height * s.Width)
	f, c := int64(s.Filters), int64(s.Channels)
	macs := hw * f * c * 9                     // input convolution
	macs += int64(2*s.Blocks) * hw * f * f * 9 // residual tower
	macs += hw * f * int64(s.PolicyChannels+s.ValueChannels)
	if pc := int64(s.PolicyChannels); s.FromToHead() {
		macs += hw*pc*pc + hw*hw*pc // W F, then F^T (W F)
	} else {
		macs += int64(s.Actions) * pc * hw
	}
	macs += int64(s.ValueHidden)*int64(s.ValueChannels)*hw + int64(s.ValueHidden)*int64(s.ValueOutputs())
	return 2 * macs
}

// ModelOptions say how net/train builds a model's training graph. They
// are plain data here, not in net/train, so that a config can name them
// without linking gorgonia.
type ModelOptions struct {
	// ReferenceOps builds the training graph's tower on gorgonia's own
	// Conv2d, BatchNorm, Rectify and Add instead of net/train/ops: the
	// slower reference the fast ops are checked against.
	ReferenceOps bool
	// BF16Convs runs the fast ops' 3x3 convolutions in bfloat16 (AMX-BF16
	// tiles or AVX512_BF16) where the CPU has them (ops.BF16).
	BF16Convs bool
}

// ModelOption changes how net/train.NewModel builds a model.
type ModelOption func(*ModelOptions)

// ReferenceOps selects ModelOptions.ReferenceOps.
func ReferenceOps() ModelOption { return func(o *ModelOptions) { o.ReferenceOps = true } }

// BF16Convs selects ModelOptions.BF16Convs.
func BF16Convs() ModelOption { return func(o *ModelOptions) { o.BF16Convs = true } }
