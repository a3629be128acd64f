package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/netphys/netphys/analysis/determinism"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// netphys vet checks a game's own simulation packages against the
// determinism rules (analysis/determinism). It loads them in process with
// go/packages; the same binary also serves go vet as a vet tool
// (go vet -vettool=$(command -v netphys) ./sim/...), which main detects
// from the arguments go vet passes (isVetTool).
func init() {
	register(&command{
		name:    "vet",
		summary: "check a game's simulation packages (netphys vet [--fma] ./sim/...) for code that breaks determinism: a*b + c, map range, time.Now, math.Sin...",
		setup:   setupVet,
		args:    "[packages]",
	})
}

func setupVet(fs *flag.FlagSet) func(ctx context.Context, args []string) error {
	fma := fs.Bool("fma", false, "also compile the packages for arm64 and amd64 (GOAMD64=v3) and report every fused multiply-add instruction in their code: it catches fusion across statements and inlined calls")
	dir := fs.String("dir", "", "`directory` of the module the package patterns are resolved in (default: the current directory)")
	return func(ctx context.Context, args []string) error {
		patterns := args
		if len(patterns) == 0 {
			patterns = []string{"."}
		}
		out := stdoutOf(fs)
		found, err := determinism.Check(ctx, *dir, patterns...)
		if err != nil {
			return err
		}
		checked := "source rules"
		if *fma {
			compiled, err := determinism.CheckFMA(ctx, *dir, patterns...)
			if err != nil {
				return err
			}
			found = append(found, compiled...)
			checked += " and compiled code for arm64 and amd64-v3"
		}
		cwd, _ := os.Getwd()
		for _, f := range found {
			if rel, err := filepath.Rel(cwd, f.Pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
				f.Pos.Filename = rel
			}
			fmt.Fprintln(out, f)
		}
		if len(found) > 0 {
			return fmt.Errorf("vet: %d determinism findings in %s (%s): fix them, or mark a deliberate exception with %s <reason> on the line or the line above",
				len(found), strings.Join(patterns, " "), checked, determinism.EscapeComment)
		}
		fmt.Fprintf(out, "netphys vet: %s: no determinism findings (%s)\n", strings.Join(patterns, " "), checked)
		return nil
	}
}

// isVetTool reports whether args (without the program name) are those go
// vet passes to a -vettool: -V=full or -flags to describe the tool, or
// flags and a unit's .cfg file to check it.
func isVetTool(args []string) bool {
	if len(args) == 0 || commands[args[0]] != nil {
		return false
	}
	return args[0] == "-flags" || strings.HasPrefix(args[0], "-V=") || strings.HasSuffix(args[len(args)-1], ".cfg")
}

// vetToolMain runs the determinism analyzer as go vet's tool; it does not
// return.
func vetToolMain() { unitchecker.Main(determinism.Analyzer) }
