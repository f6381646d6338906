package train

// Internals for the external tests (package net_test), which may import
// configs for the preset shapes.
var (
	RandomPlanes = randomPlanes
	RandomBatch  = randomBatch
	MaskBatch    = maskBatch
)
