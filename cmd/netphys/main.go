// Command netphys runs the netphys demo, servers, clients, tools and
// benchmark reports. Every command prints its flags with --help.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	// The games netphys ships register their models with the runtime
	// (package match) through its public API, as an outside game would.
	_ "github.com/netphys/netphys/internal/cubegames"
)

// A command is one verb of the program, such as "demo" or "bench physics".
// Each lives in its own file and registers itself from init.
type command struct {
	name    string // "demo", or "bench physics" for a report under bench
	summary string // one line for the command list
	// args describes the positional arguments the command takes after its
	// flags, for its usage line ("packages"); empty for a command that takes
	// none, which then refuses any.
	args string
	// setup declares the command's flags on fs and returns the function
	// that runs it once the flags are parsed. Positional arguments left
	// after the flags are passed to run.
	setup func(fs *flag.FlagSet) func(ctx context.Context, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if commands[c.name] != nil {
		panic("netphys: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	if isVetTool(os.Args[1:]) { // go vet -vettool=netphys (vet.go)
		vetToolMain()
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errNoCommand):
		printUsage(os.Stderr, "")
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "netphys:", err)
		os.Exit(1)
	}
}

// errNoCommand is netphys run without a command: the usage goes to
// standard error and the exit status is 2, as for a bad flag.
var errNoCommand = errors.New("no command given (run netphys --help)")

// logLevel reads NETPHYS_LOG (debug, info, warn, error); info by default.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("NETPHYS_LOG"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// run finds the command named by the leading arguments, parses its flags
// and runs it.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errNoCommand
	}
	if isHelp(args[0]) {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout)
		}
		printUsage(stdout, "")
		return nil
	}
	name := args[0]
	rest := args[1:]
	if commands[name] == nil {
		// A group such as "bench": the next word names the command.
		if len(rest) > 0 && commands[name+" "+rest[0]] != nil {
			name, rest = name+" "+rest[0], rest[1:]
		} else if hasGroup(name) {
			printUsage(stdout, name)
			if len(rest) == 0 || isHelp(rest[0]) {
				return nil
			}
			return fmt.Errorf("unknown command %q", name+" "+rest[0])
		} else {
			return fmt.Errorf("unknown command %q (run netphys --help)", name)
		}
	}
	c := commands[name]
	fs := flag.NewFlagSet("netphys "+name, flag.ContinueOnError)
	fs.SetOutput(stdout)
	runFn := c.setup(fs)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: netphys %s [flags]%s\n\n%s\n\nflags:\n", name, strings.TrimRight(" "+c.args, " "), c.summary)
		fs.PrintDefaults()
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if c.args == "" && fs.NArg() > 0 {
		return fmt.Errorf("%s takes no arguments, only flags: %q is extra (run netphys %s --help)", name, fs.Args(), name)
	}
	return runFn(ctx, fs.Args())
}

func isHelp(s string) bool { return s == "-h" || s == "--help" || s == "-help" || s == "help" }

func hasGroup(group string) bool {
	for name := range commands {
		if strings.HasPrefix(name, group+" ") {
			return true
		}
	}
	return false
}

func printUsage(w io.Writer, group string) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		if group == "" || strings.HasPrefix(name, group+" ") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	fmt.Fprintln(w, "netphys: networked rigid-body physics for multiplayer games")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: netphys <command> [flags]   (netphys <command> --help for its flags)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, name := range names {
		fmt.Fprintf(w, "  %-20s %s\n", name, commands[name].summary)
	}
}
