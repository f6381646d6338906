package gemm

import (
	"log/slog"
	"os"
)

// The instruction sets the kernels are chosen among, narrowest first.
const (
	isaGo = iota
	isaAVX2
	isaAVX512
	isaAMX
)

// isaCap is the widest instruction set any kernel may use. TABULA_ISA
// (amx, avx512, avx2 or go) lowers it, so that one machine can measure and
// test the paths a smaller one takes (OPENBLAS_CORETYPE's role in
// OpenBLAS); unset, the CPU alone decides. An unknown value is reported
// and ignored.
var isaCap = parseISACap(os.Getenv("TABULA_ISA"))

func parseISACap(v string) int {
	switch v {
	case "", "amx":
		return isaAMX
	case "avx512":
		return isaAVX512
	case "avx2":
		return isaAVX2
	case "go":
		return isaGo
	}
	slog.Warn("gemm: TABULA_ISA is not amx, avx512, avx2 or go: ignored", "TABULA_ISA", v)
	return isaAMX
}
