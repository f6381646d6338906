// Package version is `tabula version`: what the binary was built from
// (the module's version, the VCS revision, its time and whether the tree
// had changes, the Go toolchain) and which instruction set the CPU gives
// the network kernels (net/gemm's choice under TABULA_ISA's cap).
//
//	tabula version [-json]
package version

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"text/tabwriter"

	"github.com/tabula-zero/tabula/internal/cliflag"
	"github.com/tabula-zero/tabula/net/gemm"
)

// Info is what `tabula version` reports; -json writes it as it is.
type Info struct {
	Module   string `json:"module"`
	Version  string `json:"version"`            // the module's version: "(devel)" for a build from a checkout
	Revision string `json:"revision,omitempty"` // the VCS revision, when the build recorded one
	Time     string `json:"time,omitempty"`     // the revision's commit time (RFC 3339)
	Modified bool   `json:"modified"`           // the tree had uncommitted changes
	Go       string `json:"go"`                 // the toolchain that built the binary
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"` // the cores this process may use

	// The kernels' dispatch: the instruction set of the fp32 tile
	// kernels, the Sgemm micro-kernel, the 8-bit kernels and the AMX
	// tiles, as the CPU and TABULA_ISA allow.
	ISA        string `json:"isa"`
	Kernel     string `json:"kernel"`
	Micro      string `json:"micro"`
	Kernel8    string `json:"kernel8"`
	AMX        bool   `json:"amx"`
	BF16       bool   `json:"bf16"`
	AVX2       bool   `json:"avx2"`
	AVX512BW   bool   `json:"avx512bw"`
	AVX512VNNI bool   `json:"avx512vnni"`
	ISACap     string `json:"tabula_isa,omitempty"` // TABULA_ISA as set
}

// Read gathers the Info of this binary on this machine.
func Read() Info {
	in := Info{Module: "github.com/tabula-zero/tabula", Version: "(unknown)", Go: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.GOMAXPROCS(0)}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			in.Module = bi.Main.Path
		}
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			in.Go = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	f := gemm.Features()
	in.ISA, in.Kernel, in.Micro = gemm.Default.ISA, gemm.Default.Name, gemm.DefaultMicro.Name
	in.Kernel8 = gemm.Kernel8For(32).Name
	in.AMX, in.BF16 = gemm.HasAMX(), gemm.HasBF16()
	in.AVX2, in.AVX512BW, in.AVX512VNNI = f.AVX2, f.AVX512BW, f.AVX512VNNI
	in.ISACap = os.Getenv("TABULA_ISA")
	return in
}

// WriteText writes in as aligned lines, the first naming the version.
func (in Info) WriteText(w io.Writer) error {
	rev := in.Revision
	switch {
	case rev == "":
		rev = "(not recorded: built outside a checkout or with -buildvcs=false)"
	case in.Modified:
		rev += " (modified)"
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "tabula %s\n", in.Version)
	fmt.Fprintf(tw, "module\t%s\n", in.Module)
	fmt.Fprintf(tw, "revision\t%s\n", rev)
	if in.Time != "" {
		fmt.Fprintf(tw, "time\t%s\n", in.Time)
	}
	fmt.Fprintf(tw, "go\t%s %s/%s\n", in.Go, in.OS, in.Arch)
	fmt.Fprintf(tw, "cpus\t%d\n", in.CPUs)
	isa := in.ISA
	if in.ISACap != "" {
		isa += " (TABULA_ISA=" + in.ISACap + ")"
	}
	fmt.Fprintf(tw, "kernels\t%s: tiles %s, sgemm %s, 8-bit %s\n", isa, in.Kernel, in.Micro, in.Kernel8)
	fmt.Fprintf(tw, "cpu\tavx2 %s, avx512bw %s, avx512vnni %s, amx %s, bf16 %s\n",
		yes(in.AVX2), yes(in.AVX512BW), yes(in.AVX512VNNI), yes(in.AMX), yes(in.BF16))
	return tw.Flush()
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Run is `tabula version`: args are the flags after the command's name.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stdout)
	asJSON := fs.Bool("json", false, "write the report as one JSON object")
	cliflag.Usage(fs, "tabula version [-json]",
		"Prints what the binary was built from (module version, VCS revision and time, whether\n"+
			"the tree was modified, the Go toolchain) and the instruction set the network kernels\n"+
			"run on here (net/gemm's choice, capped by TABULA_ISA). tabula -version is the same.", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("version: unexpected arguments %q", fs.Args())
	}
	in := Read()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	return in.WriteText(stdout)
}
