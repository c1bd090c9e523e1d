// Command rocelab predicts, explains and fixes the behaviour of RoCEv2
// fabrics for GPU clusters: a packet-level twin, a doctor for real
// artifacts, a tuner and a monitor, in one binary.
//
// Exit codes: 0 ok, 1 findings at error level, 2 bad usage or input.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// exitError carries an exit code out of a command. A nil err with a code
// means the command has already reported what it had to.
type exitError struct {
	code int
	err  error
}

// Error implements error.
func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

// usageError marks bad usage or input: exit 2 with the message.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// execute runs the command line and returns the process exit code.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			printError(stderr, ee.err)
		}
		return ee.code
	}
	// Cobra's own errors: unknown command or flag, wrong argument count.
	printError(stderr, err)
	if cmd != nil && cmd != root {
		fmt.Fprintf(stderr, "usage: %s (see '%s --help')\n", cmd.UseLine(), cmd.CommandPath())
	}
	return 2
}

// printError prints an error as "rocelab: ...", each of several errors
// (one per line, as a scenario's list) with its own prefix; indented
// lines continue the one before.
func printError(w io.Writer, err error) {
	for _, l := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			l = "rocelab: " + l
		}
		fmt.Fprintln(w, l)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "rocelab",
		Short: "Predict, explain and fix RoCEv2 fabric behaviour for GPU clusters",
		Long: `rocelab predicts, explains and fixes the behaviour of RoCEv2 fabrics for GPU
clusters, in one binary:

  twin      run (a scenario, or the embedded default), examples, merge
  doctor    diagnose (NCCL logs, nccl-tests, counters, perftest, GIDs, QoS,
            captures, a twin's --out), capture, collect (on a host)
  configs   lint, tune (search on the twin), config gen, calc
  monitor   exporter (Prometheus)

  rocelab run -q --out t && rocelab diagnose t/as-found

Exit status of every command: 0 when all is well, 1 for findings at error
level (or a condition --fail-on names), 2 for bad usage or input; each
command's --help says more.`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Every command refuses a bad --log-level, those that log nothing
		// too, so a mistyped level fails where it is typed.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			level, _ := cmd.Flags().GetString(flagLogLevel)
			_, err := newLogSetup(io.Discard, false, level, false)
			return err
		},
	}
	root.SetVersionTemplate("rocelab {{.Version}}\n")
	addLogFlags(root)
	root.AddCommand(
		newRunCmd(),
		newMergeCmd(),
		newExamplesCmd(),
		newDiagnoseCmd(),
		newCaptureCmd(),
		newCollectCmd(),
		newCalcCmd(),
		newLintCmd(),
		newConfigCmd(),
		newTuneCmd(),
		newExporterCmd(),
	)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	documentExits(root)
	for _, c := range root.Commands() {
		requireSubcommand(c)
	}
	plainArgErrors(root)
	return root
}
