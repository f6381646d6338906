//go:build amd64 && !noasm

package bnkern

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func sumAVX2(row *float32, n int, s0 *float64, c int)

//go:noescape
func sqDevAVX2(row *float32, n int, mean, s1 *float64, c int)

//go:noescape
func normAVX2(row, out *float32, mask *byte, n int, scale, shift *float32, c int)

//go:noescape
func normResAVX2(row, res, out *float32, mask *byte, n int, scale, shift *float32, c int)

//go:noescape
func gradSumAVX2(y, dz *float32, mask *byte, n int, mean, s0, s1 *float64, c int)

//go:noescape
func gradAVX2(dz *float32, mask *byte, y, dy *float32, n int, a, by, d0 *float32, c int)

//go:noescape
func gradResAVX2(dz *float32, mask *byte, y, dy, dres *float32, n int, a, by, d0 *float32, c int)
