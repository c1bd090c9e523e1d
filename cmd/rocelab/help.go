package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// Exit status paragraphs for the commands' help.
const (
	exitRun = `Exit status:
  0  the run finished, whatever its health targets say (unless --fail-on)
  1  --fail-on was given and the run meets a condition it names
  2  bad usage, an unreadable or invalid scenario, or one over the limits`
	exitCapture = `Exit status:
  0  no error-level finding
  1  an error-level finding (see 'rocelab diagnose' for the findings' ids)
  2  unreadable input or bad usage`
	exitDiagnose = `Exit status:
  0  no error-level finding
  1  an error-level finding
  2  no usable input, or bad usage`
	exitOther = `Exit status:
  0  ok
  2  bad usage`
)

// documentExits appends the generic exit status to every command whose help
// does not give its own (help, completion and its subcommands).
func documentExits(c *cobra.Command) {
	if !strings.Contains(c.Long, "Exit status") {
		long := c.Long
		if long == "" {
			long = c.Short
		}
		c.Long = long + "\n\n" + exitOther
	}
	for _, sub := range c.Commands() {
		documentExits(sub)
	}
}

// requireSubcommand makes every command that only groups subcommands (calc,
// config, completion, tune's merge group) refuse to run without one: an
// unknown subcommand, or none, is bad usage (exit 2) with the list of the
// valid ones, where cobra would print the help and exit 0.
func requireSubcommand(c *cobra.Command) {
	if c.HasSubCommands() && c.Run == nil && c.RunE == nil {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			var names []string
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() {
					names = append(names, s.Name())
				}
			}
			if len(args) > 0 {
				return usageError("unknown command %q for %q: expected one of %s (see '%s --help')", args[0], cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
			}
			return usageError("%s needs a subcommand: %s (see '%s --help')", cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
		}
	}
	for _, sub := range c.Commands() {
		requireSubcommand(sub)
	}
}

// argCount reads cobra's argument-count messages ("accepts 1 arg(s),
// received 0", "requires at least 1 arg(s), only received 0"), compiled
// at the first such error.
var argCount = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(accepts|requires at least|accepts at most) (\d+) arg\(s\), (?:only )?received (\d+)$`)
})

// plainArgErrors rewords cobra's argument-count errors for a user: which
// command, how many arguments it takes and what it got; the usage line
// that follows every usage error names them.
func plainArgErrors(c *cobra.Command) {
	if orig := c.Args; orig != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			err := orig(cmd, args)
			if err == nil {
				return nil
			}
			m := argCount().FindStringSubmatch(err.Error())
			if m == nil {
				return err
			}
			n, _ := strconv.Atoi(m[2])
			takes := map[string]string{"accepts": "takes", "requires at least": "needs at least", "accepts at most": "takes at most"}[m[1]]
			what := "one argument"
			if n != 1 {
				what = m[2] + " arguments"
			}
			got := "none"
			if len(args) > 0 {
				got = fmt.Sprintf("%d (%s)", len(args), strings.Join(args, " "))
			}
			return fmt.Errorf("%s %s %s, got %s", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), takes, what, got)
		}
	}
	for _, sub := range c.Commands() {
		plainArgErrors(sub)
	}
}
