package main

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"rocelab/examples"
)

func newExamplesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "examples [NAME]",
		Short: "List the embedded example scenarios, or print one",
		Long: `examples lists the embedded example scenarios with what each shows, or prints
one: a starting point for your own (rocelab examples incast-pfc > my.yaml).

Exit status:
  0  ok
  2  no such example, or bad usage`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completeExamples,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				data, err := examples.FS.ReadFile(strings.TrimSuffix(args[0], ".yaml") + ".yaml")
				if err != nil {
					return usageError("no embedded example %q", args[0])
				}
				_, err = cmd.OutOrStdout().Write(data)
				return err
			}
			names, err := fs.Glob(examples.FS, "*.yaml")
			if err != nil {
				return err
			}
			for _, n := range names {
				data, _ := examples.FS.ReadFile(n)
				first, _, _ := strings.Cut(string(data), "\n")
				fmt.Fprintf(cmd.OutOrStdout(), "%-24s %s\n", strings.TrimSuffix(n, ".yaml"), strings.TrimPrefix(first, "# "))
			}
			return nil
		},
	}
}
