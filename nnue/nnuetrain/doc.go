// Package nnuetrain trains Xiangqi's learned evaluation (package nnue)
// on the records of package nnuedata, on the CPU with kernels of its own
// (gorgonia's dense formulation of the same step measured many times
// slower: docs/nnue.md).
//
// Data (Load): every record of one or more directories of shards, kept
// as a Sample of 36 bytes (the 32 piece squares, score, result, side to
// move); the two perspectives' feature indices are computed from the
// squares with nnue.Feature when a batch is made, which costs a few
// percent of a step and keeps a record in memory at a third of what its
// features would take. Mate scores are skipped and scores capped; whole games are
// held out for validation (positions of one game are correlated, so a
// split by position would leak), chosen by a hash of the game's seed.
//
// Model: nnue.FloatNet's forward pass (the sparse first layer a sum of
// the active rows, clipped ReLU), its backward pass written out (the
// first layer's gradient touches only the active rows), Adam. Loss: the
// prediction sigmoid(eval/K) against the target
// lambda*sigmoid(score/K) + (1-lambda)*(result+1)/2, squared error. After every step each weight is clipped to what
// nnue.Quantize accepts, and the feature transformer's so that bias plus
// MaxActive rows fits an int16 accumulator; quantisation-aware, the dense
// layers run on their weights rounded as exported: the exported network
// follows the float one. Feature rows may be factorised (each the sum of
// its own, its piece-square's and its piece's, exported summed).
//
// Run is a whole run (epochs, the network exported at each one's end, the
// best one kept, the state saved and resumed); tabula nnue train is its
// command.
//
// A step splits its batch into fixed parts of samples, each with its own
// gradient buffer for the dense layers, summed in part order; the first
// layer's rows are accumulated by column blocks, each block running over
// the whole batch in order. No sum depends on which thread ran what, so a
// seed gives the same weights bit for bit at any thread count, and a run
// resumed from its state (Trainer.Save: weights, Adam's moments, epoch
// and step) continues as if it had never stopped.
package nnuetrain
