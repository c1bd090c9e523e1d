package main

import (
	"strings"

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
