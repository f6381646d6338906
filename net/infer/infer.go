// Package infer is the fast CPU forward pass used by search.
//
// New folds each batch norm into its convolution (w' = w*gamma/sqrt(var+eps),
// b' = beta - mean*gamma/sqrt(var+eps)) and lays the weights out in panels;
// activations live in zero-padded NHWC buffers allocated once for batches
// up to a maximum, so a steady-state Forward allocates nothing. Every layer
// (3x3 and 1x1 convolutions, the dense layers) runs as 6-row tiles of one
// register-blocked kernel that reads 3x3 patches straight from the padded
// buffer (no im2col copy) and fuses bias, residual add and ReLU.
//
// The kernel is chosen when the package is initialised: AVX-512 or
// AVX2+FMA assembly on amd64 CPUs that support it, otherwise a pure-Go
// kernel; the noasm build tag selects the pure-Go kernel everywhere. Each
// kernel is tested against a plain-loop twin (gemm.Ref), and the whole
// pass against (*net.Params).Reference and the gorgonia model.
//
// NewInt8 runs the residual tower in 8 bits (int8.go): weights quantized
// per output channel, activations at scales fixed by calibration
// positions, on gemm's 8-bit kernel (AVX-512 VNNI or AVX-VNNI, or its pure-Go twin).
//
// A Net is not safe for concurrent use; Clone gives each goroutine its own
// buffers over the same weights.
package infer

import (
	"errors"
	"fmt"
	"math"

	"github.com/tabula-zero/tabula/net"
	"github.com/tabula-zero/tabula/net/gemm"
)

// weights is the read-only part of a Net, shared by clones.
type weights struct {
	spec    net.Spec
	kern    gemm.Kernel
	h, w    int // board
	hw      int
	wp      int // padded width
	pp      int // padded pixels per image
	fp      int // tower channel stride (filters rounded up to nr)
	hc      int // head channel stride (policy + value channels rounded up to nr)
	ap      int // policy logits stride (actions rounded up to nr)
	vhp     int // value hidden stride
	kpol    int // policy FC inputs: hw * policy channels
	kval    int // value FC1 inputs: hw * value channels
	in      layer
	tower   []layer // 2 per block
	head    layer   // policy and value 1x1 convolutions side by side
	polFC   layer
	fromTo  *net.FromTo    // the from-to head (polFC unused), or nil
	t8      *tower8        // the tower in 8 bits (NewInt8), or nil: fp32
	amxPlan *gemm.AMXTiles // the 8-bit tower's AMX tiles over maxBatch images (t8.amx set)
	valFC1  layer
	valW2   []float32 // value FC2 weights [outputs][value hidden]: one output, or the WDL head's three logits
	valB2   []float32 // value FC2 biases [outputs]

	maxBatch int
	images   int   // images in a padded buffer: maxBatch plus scratch for tail rows
	inPix    []int // padded pixel of each board square (y*w + x)
	// Offset tables indexed by pixel (b*hw + y*w + x) or batch row; they run
	// past the real rows to the end of the last tile, pointing at scratch.
	inA, towerA, towerC, headA, headC []int
	inA8                              []int // inA over the 8-bit input's channel stride (t8.in set)
	polA, polC, valA, valC            []int
}

// layer is one packed layer: panels of kdim x nr weights and nr biases.
type layer struct {
	nseg, seglen, segstride int
	panels                  int
	relu                    bool
	w                       []float32 // panel j at j*kdim*nr
	bias                    []float32 // panel j at j*nr
}

// Net is a network laid out for fast inference. A Net owns its activation
// buffers and is not safe for concurrent use: give each goroutine its own
// Clone (clones share the read-only weights).
type Net struct {
	*weights
	planes []float32 // padded NHWC input, channel stride spec.Channels
	x, t   []float32 // tower activations, padded NHWC, channel stride fp
	heads  []float32 // head conv output [pixel][hc]
	pol    []float32 // policy FC inputs [row][kpol]
	val    []float32 // value FC1 inputs [row][kval]
	logits []float32 // [row][ap]
	hidden []float32 // [row][vhp]
	tl     gemm.Tile
	ft     []float32       // the from-to head's W f per square of every image [batch*hw][policy channels]
	ws     *gemm.Workspace // the from-to head's products
	// x8 is a tower buffer in bytes (layout of x) for the 8-bit tower,
	// planes8 the input in bytes for its input convolution.
	x8      []uint8
	planes8 []uint8
	tl8     gemm.Tile8
	// amxTiles are the AMX tiles of maxBatch images, amxSum their scratch.
	amxTiles *gemm.AMXTiles
	amxSum   []int32
	// observe, when set, sees the input of each tower convolution
	// (NewInt8's calibration).
	observe func(layer int, a []float32, batch int)
}

// New folds and lays out p for batches of up to maxBatch positions (1 to
// 65536). It returns an error if p fails (*net.Params).Check or its
// buffers would be unreasonably large. p is not retained: later changes to
// it do not affect the Net.
func New(p *net.Params, maxBatch int) (*Net, error) {
	if p == nil {
		return nil, errors.New("infer: nil params")
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("infer: %w", err)
	}
	if maxBatch < 1 || maxBatch > 1<<16 {
		return nil, fmt.Errorf("infer: max batch %d out of range [1, 65536]", maxBatch)
	}
	if n := largestBuffer(p.Spec, maxBatch); n > maxBuffer {
		return nil, fmt.Errorf("infer: a %dx%d board with %d filters at batch %d needs a buffer of %.3g floats (limit %.3g)",
			p.Spec.Height, p.Spec.Width, p.Spec.Filters, maxBatch, n, maxBuffer)
	}
	// One kernel for the whole net, chosen for the tower, where the work is:
	// its filters are also the channel stride every layer reads.
	return newNet(p, maxBatch, gemm.For(p.Spec.Filters)), nil
}

// maxBuffer bounds the length of any buffer New allocates (8 GiB of
// float32, or less where int is 32 bits wide).
var maxBuffer = math.Min(1<<31, float64(math.MaxInt)/8)

// largestBuffer estimates, in float64 to avoid overflow, the longest
// buffer newNet would allocate for any kernel of the build (padding by
// at most the widest panel).
func largestBuffer(s net.Spec, maxBatch int) float64 {
	nr := 0
	for _, k := range gemm.Kernels {
		nr = max(nr, k.NR)
	}
	f := func(n int) float64 { return float64(n) }
	hw := f(s.Height) * f(s.Width)
	pixels := (f(maxBatch) + gemm.MR) * (f(s.Height) + 2) * (f(s.Width) + 2)
	return max(
		pixels*f(max(s.Channels, s.Filters+nr)),                                                            // activations
		(f(maxBatch)*hw+gemm.MR)*f(s.PolicyChannels+s.ValueChannels+nr),                                    // head output
		9*f(max(s.Channels, s.Filters)+nr)*f(s.Filters+nr),                                                 // 3x3 weights
		hw*f(s.PolicyChannels)*f(s.Actions+nr),                                                             // policy FC
		hw*f(s.ValueChannels)*f(s.ValueHidden+nr),                                                          // value FC1
		(f(maxBatch)+gemm.MR)*max(hw*f(s.PolicyChannels+s.ValueChannels), f(s.Actions+s.ValueHidden+2*nr)), // dense rows
	)
}

func newNet(p *net.Params, maxBatch int, k gemm.Kernel) *Net {
	s := p.Spec
	nr := k.NR
	wt := &weights{spec: s, kern: k, h: s.Height, w: s.Width, hw: s.Height * s.Width,
		wp: s.Width + 2, maxBatch: maxBatch}
	wt.pp = (s.Height + 2) * wt.wp
	wt.fp = gemm.RoundUp(s.Filters, nr)
	wt.hc = gemm.RoundUp(s.PolicyChannels+s.ValueChannels, nr)
	wt.ap = gemm.RoundUp(s.Actions, nr)
	wt.vhp = gemm.RoundUp(s.ValueHidden, nr)
	wt.kpol = wt.hw * s.PolicyChannels
	wt.kval = wt.hw * s.ValueChannels

	wt.in = packConv3(&p.Input, s.Channels, wt.wp, nr)
	for i := range p.Blocks {
		wt.tower = append(wt.tower, packConv3(&p.Blocks[i].A, wt.fp, wt.wp, nr), packConv3(&p.Blocks[i].B, wt.fp, wt.wp, nr))
	}
	wt.head = packHead(&p.PolicyConv, &p.ValueConv, wt.fp, nr)
	if s.FromToHead() {
		ft := p.FromTo
		ft.W, ft.B = append([]float32(nil), ft.W...), append([]float32(nil), ft.B...)
		wt.fromTo = &ft
	} else {
		wt.polFC = packDense(&p.PolicyFC, wt.hw, s.PolicyChannels, nr, false)
	}
	wt.valFC1 = packDense(&p.ValueFC1, wt.hw, s.ValueChannels, nr, true)
	wt.valW2 = append([]float32(nil), p.ValueFC2.W...)
	wt.valB2 = append([]float32(nil), p.ValueFC2.B...)

	// Pixel rows: real pixels of maxBatch images, then whole scratch images
	// so that the last tile's spare rows land in a scratch image interior.
	pixRows := gemm.RoundUp(maxBatch*wt.hw, gemm.MR)
	wt.images = maxBatch + (pixRows-maxBatch*wt.hw+wt.hw-1)/wt.hw
	pix := make([]int, pixRows) // padded pixel index of each row
	for i := range pix {
		b, q := i/wt.hw, i%wt.hw
		pix[i] = b*wt.pp + (q/wt.w+1)*wt.wp + q%wt.w + 1
	}
	wt.inPix = pix[:wt.hw]
	corner := wt.wp + 1 // from a pixel to the top left of its 3x3 patch
	wt.inA = make([]int, pixRows)
	wt.towerA = make([]int, pixRows)
	wt.towerC = make([]int, pixRows)
	wt.headA = make([]int, pixRows)
	wt.headC = make([]int, pixRows)
	for i, q := range pix {
		wt.inA[i] = (q - corner) * s.Channels
		wt.towerA[i] = (q - corner) * wt.fp
		wt.towerC[i] = q * wt.fp
		wt.headA[i] = q * wt.fp
		wt.headC[i] = i * wt.hc
	}
	rows := gemm.RoundUp(maxBatch, gemm.MR)
	wt.polA, wt.polC = strided(rows, wt.kpol), strided(rows, wt.ap)
	wt.valA, wt.valC = strided(rows, wt.kval), strided(rows, wt.vhp)
	return wt.buffers()
}

func strided(n, stride int) []int {
	t := make([]int, n)
	for i := range t {
		t[i] = i * stride
	}
	return t
}

// buffers returns a Net on wt with fresh zeroed buffers.
func (wt *weights) buffers() *Net {
	rows := gemm.RoundUp(wt.maxBatch, gemm.MR)
	var x8, planes8 []uint8
	var amxTiles *gemm.AMXTiles
	var amxSum []int32
	if wt.t8 != nil && wt.t8.in != nil {
		planes8 = make([]uint8, wt.images*wt.pp*wt.t8.cs)
	}
	if wt.t8 != nil {
		// The last AMX tile of an image reads up to AMXRows padded pixels
		// past its last real one (rows it drops): slack past the last image.
		x8 = make([]uint8, (wt.images*wt.pp+gemm.AMXRows+2*wt.wp+2)*wt.fp)
		if wt.t8.amx != nil {
			amxTiles = wt.amxPlan
			amxSum = make([]int32, gemm.AMXRows*wt.fp)
		}
	}
	return &Net{
		weights:  wt,
		x8:       x8,
		planes8:  planes8,
		amxTiles: amxTiles,
		amxSum:   amxSum,
		planes:   make([]float32, wt.images*wt.pp*wt.spec.Channels),
		x:        make([]float32, wt.images*wt.pp*wt.fp),
		t:        make([]float32, wt.images*wt.pp*wt.fp),
		heads:    make([]float32, len(wt.headC)*wt.hc),
		pol:      make([]float32, rows*wt.kpol),
		val:      make([]float32, rows*wt.kval),
		logits:   make([]float32, rows*wt.ap),
		hidden:   make([]float32, rows*wt.vhp),
		ft:       make([]float32, len(wt.headC)*wt.spec.PolicyChannels),
		// One core: Parallel spreads a batch over the cores by clones,
		// and a product spread again inside one takes its cores from the
		// others (Xiangqi's self-play ran 7% slower so).
		ws: gemm.NewWorkspaceOn(1),
	}
}

// Clone returns a Net sharing n's read-only weights with buffers of its
// own, for use by another goroutine.
func (n *Net) Clone() *Net { return n.weights.buffers() }

// MaxBatch is the largest batch Forward accepts.
func (n *Net) MaxBatch() int { return n.maxBatch }

// Spec is the shape of the network.
func (n *Net) Spec() net.Spec { return n.spec }

// Kernel names the tile kernel in use ("avx512", "avx512x48", "avx2" or "go").
func (n *Net) Kernel() string { return n.kern.Name }

// HasWDL reports whether the network has the win/draw/loss value head,
// whose probabilities ForwardWDL gives.
func (n *Net) HasWDL() bool { return n.spec.WDLHead() }

// Forward evaluates batch positions: planes holds [batch][c][h][w] encoder
// planes; Forward writes policy logits [batch][actions] and values [batch]
// (after tanh; W - L with the WDL head). It allocates nothing.
func (n *Net) Forward(planes []float32, batch int, policy, value []float32) error {
	return n.ForwardWDL(planes, batch, policy, value, nil)
}

// ForwardWDL is Forward that also writes, for a network with the WDL
// head, each position's probabilities of a win, a draw and a loss into
// wdl [batch][3]; a nil wdl asks for none. The value head's dense layers
// run in fp32 in both precisions, so the 8-bit tower changes them only
// through its features.
func (n *Net) ForwardWDL(planes []float32, batch int, policy, value, wdl []float32) error {
	s := &n.spec
	if batch < 1 || batch > n.maxBatch {
		return fmt.Errorf("infer: batch %d out of range [1, %d]", batch, n.maxBatch)
	}
	if want := batch * s.Channels * n.hw; len(planes) != want {
		return fmt.Errorf("infer: %d planes values for batch %d, want %d", len(planes), batch, want)
	}
	if want := batch * s.Actions; len(policy) != want {
		return fmt.Errorf("infer: policy has length %d for batch %d, want %d", len(policy), batch, want)
	}
	if len(value) != batch {
		return fmt.Errorf("infer: value has length %d for batch %d, want %d", len(value), batch, batch)
	}
	if wdl != nil && (!s.WDLHead() || len(wdl) != 3*batch) {
		if !s.WDLHead() {
			return errors.New("infer: win/draw/loss probabilities asked of a network without the WDL head")
		}
		return fmt.Errorf("infer: wdl has length %d for batch %d, want %d", len(wdl), batch, 3*batch)
	}

	pixRows := gemm.RoundUp(batch*n.hw, gemm.MR)
	if n.t8 != nil && n.t8.in != nil && n.input8(planes, batch) {
		// The first digit's sums, then the second's added to them.
		n.layer8(n.t8.in, n.planes8, n.inA8, n.x, n.towerC, nil, pixRows, false)
		n.layer8(n.t8.inLo, n.planes8, n.inA8, n.x, n.towerC, n.x, pixRows, true)
	} else {
		// NCHW planes into the padded NHWC buffer.
		c, hw := s.Channels, n.hw
		for b := 0; b < batch; b++ {
			img := n.planes[b*n.pp*c : (b+1)*n.pp*c]
			for ch := 0; ch < c; ch++ {
				src := planes[(b*c+ch)*hw : (b*c+ch+1)*hw]
				for q, v := range src {
					img[n.inPix[q]*c+ch] = v
				}
			}
		}
		n.layer(&n.in, n.planes, n.inA, n.x, n.towerC, nil, pixRows)
	}
	for i := 0; i < len(n.tower); i += 2 {
		if n.t8 != nil && n.t8.amx != nil {
			tiles := batch * n.amxTiles.PerImage()
			n.quantize(n.x, n.x8, batch, n.t8.layers[i].in)
			n.t8.amx[i].Run(n.x8, n.amxTiles, tiles, n.amxSum, n.t, nil)
			n.quantize(n.t, n.x8, batch, n.t8.layers[i+1].in)
			n.t8.amx[i+1].Run(n.x8, n.amxTiles, tiles, n.amxSum, n.x, n.x)
			continue
		}
		if n.t8 != nil {
			a, b := &n.t8.layers[i], &n.t8.layers[i+1]
			n.quantize(n.x, n.x8, batch, a.in)
			n.layer8(a, n.x8, n.towerA, n.t, n.towerC, nil, pixRows, true)
			n.quantize(n.t, n.x8, batch, b.in)
			n.layer8(b, n.x8, n.towerA, n.x, n.towerC, n.x, pixRows, true)
			continue
		}
		if n.observe != nil {
			n.observe(i, n.x, batch)
		}
		n.layer(&n.tower[i], n.x, n.towerA, n.t, n.towerC, nil, pixRows)
		if n.observe != nil {
			n.observe(i+1, n.t, batch)
		}
		n.layer(&n.tower[i+1], n.t, n.towerA, n.x, n.towerC, n.x, pixRows)
	}
	n.layer(&n.head, n.x, n.headA, n.heads, n.headC, nil, pixRows)

	// Split the head output into the two dense layers' inputs, pixel-major
	// (the dense weights were permuted to match).
	pc, vc, hw := s.PolicyChannels, s.ValueChannels, n.hw
	for b := 0; b < batch; b++ {
		pol := n.pol[b*n.kpol : (b+1)*n.kpol]
		val := n.val[b*n.kval : (b+1)*n.kval]
		for q := 0; q < hw; q++ {
			h := n.heads[(b*hw+q)*n.hc:][:pc+vc]
			if n.fromTo == nil { // the from-to head reads the head output in place
				copy(pol[q*pc:(q+1)*pc], h[:pc])
			}
			copy(val[q*vc:(q+1)*vc], h[pc:])
		}
	}
	rows := gemm.RoundUp(batch, gemm.MR)
	if n.fromTo != nil {
		n.fromToLogits(batch, policy)
	} else {
		n.layer(&n.polFC, n.pol, n.polA, n.logits, n.polC, nil, rows)
		for b := 0; b < batch; b++ {
			copy(policy[b*s.Actions:(b+1)*s.Actions], n.logits[b*n.ap:])
		}
	}
	n.layer(&n.valFC1, n.val, n.valA, n.hidden, n.valC, nil, rows)

	vh := s.ValueHidden
	for b := 0; b < batch; b++ {
		hid := n.hidden[b*n.vhp:][:vh]
		if s.WDLHead() {
			var logits, probs [3]float32
			for k := range logits {
				sum := n.valB2[k]
				for i, v := range hid {
					sum += v * n.valW2[k*vh+i]
				}
				logits[k] = sum
			}
			dst := probs[:]
			if wdl != nil {
				dst = wdl[3*b : 3*b+3]
			}
			value[b] = net.WDL(logits[:], dst)
			continue
		}
		sum := n.valB2[0]
		for i, v := range hid {
			sum += v * n.valW2[i]
		}
		value[b] = float32(math.Tanh(float64(sum)))
	}
	return nil
}

// fromToLogits writes the from-to head's logits: per image, with F the
// policy features [hw][c] (rows of the head output), G = F W^T holds W f_j
// in row j and the logits [hw][hw] are B + F G^T.
func (n *Net) fromToLogits(batch int, policy []float32) {
	hw, pc, ft := n.hw, n.spec.PolicyChannels, n.fromTo
	// G for every image at once: the images' rows are one matrix.
	n.ws.Sgemm(false, true, batch*hw, pc, pc, 1, n.heads, n.hc, ft.W, pc, 0, n.ft, pc)
	for b := 0; b < batch; b++ {
		out := policy[b*hw*hw : (b+1)*hw*hw]
		copy(out, ft.B)
		n.ws.Sgemm(false, true, hw, hw, pc, 1, n.heads[b*hw*n.hc:], n.hc, n.ft[b*hw*pc:], pc, 1, out, hw)
	}
}

// layer runs l over the first rows rows of the offset tables, reading a and
// writing c (adding the residual res when non-nil).
func (n *Net) layer(l *layer, a []float32, aoff []int, c []float32, coff []int, res []float32, rows int) {
	nr := n.kern.NR
	kdim := l.nseg * l.seglen
	t := &n.tl
	*t = gemm.Tile{A: a, NSeg: l.nseg, SegLen: l.seglen, SegStride: l.segstride, C: c, Res: res, ReLU: l.relu}
	for j := 0; j < l.panels; j++ {
		t.W = l.w[j*kdim*nr : (j+1)*kdim*nr]
		t.Bias = l.bias[j*nr : (j+1)*nr]
		for r := 0; r < rows; r += gemm.MR {
			t.Aoff = aoff[r : r+gemm.MR]
			t.Coff = coff[r : r+gemm.MR : r+gemm.MR]
			n.kern.Run(t)
		}
		// Next panel: shift the output columns by nr.
		c = c[nr:]
		t.C = c
		if res != nil {
			res = res[nr:]
			t.Res = res
		}
	}
	t.A, t.C, t.Res, t.W, t.Bias = nil, nil, nil, nil, nil
}
