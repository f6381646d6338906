// Package nnue is Xiangqi's efficiently updatable evaluation network
// (NNUE) at play time: sparse features of the pieces relative to each
// side's general, int16 accumulators updated incrementally as moves are
// made and unmade, and small int8 dense layers with clipped ReLU, in
// SIMD assembly (AVX2, AVX-512BW, AVX-512 VNNI) chosen at run time under
// TABULA_ISA's cap, each kernel with a pure-Go twin that gives the same
// bits (the only path under the noasm tag). It is Xiangqi-specific and
// links no training code; docs/nnue.md describes the design.
//
// Features (FeatureSet "xq-palace-v1", version 1): for each perspective c
// (Red, Black) squares are oriented so that c's side is at the bottom
// (Black's ranks flipped). c's general stands on one of its palace's nine
// squares; when it stands right of the centre file (oriented file > 4)
// every file is mirrored (f -> 8-f) for c, so the general's square falls
// in one of 3 ranks x 2 files = NumBuckets buckets. A piece is (own or
// their) x 7 types (general, advisor, elephant, horse, chariot, cannon,
// soldier); feature = (bucket*14 + piece)*90 + oriented square, of
// NumFeatures = 7560. AppendFeatures lists one perspective's active
// features; Feature and ChangedFeatures give single features and what a
// move changes.
//
// Network (sizes in the file; DefaultSizes 256, 16, 32): the feature
// transformer's int16 rows and biases at FTScale (127 for 1.0) make each
// perspective's accumulator; the side to move's and the other's,
// concatenated and clipped to [0, 127], feed dense L1*2 -> L2 (int8
// weights at 64, int32 biases, sums >> 6 then clipped), L2 -> L3 alike,
// and L3 -> 1, whose output over OutputDiv is centi-units from the side
// to move's view (OutputScale per float unit). FloatNet is the float
// reference of the same shapes and Quantize makes a Net of it.
//
// Position wraps *xiangqi.Position for package alphabeta: Make, Unmake,
// MakeNull, UnmakeNull and Clone keep a stack of accumulators, one entry
// a ply with the pieces the move changed, computed lazily when Evaluate
// asks (from the nearest computed entry below it, or from scratch for a
// perspective whose general moved).
//
// Shipped is the network that ships with tabula (models/xiangqi.nnue,
// checked against models/SHA256SUMS), what the learned evaluation
// searches with when no file is named.
package nnue
