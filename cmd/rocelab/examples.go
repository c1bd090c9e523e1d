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
					return usageError("no embedded example %q: expected one of %s", args[0], strings.Join(exampleNames(), ", "))
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
				fmt.Fprintf(cmd.OutOrStdout(), "%-24s %s\n", strings.TrimSuffix(n, ".yaml"), firstSentence(string(data)))
			}
			return nil
		},
	}
}

// firstSentence is the first sentence of a scenario's leading comment,
// however many lines it spans.
func firstSentence(yaml string) string {
	var words []string
	for _, l := range strings.Split(yaml, "\n") {
		t, ok := strings.CutPrefix(strings.TrimSpace(l), "#")
		if !ok || strings.TrimSpace(t) == "" {
			break
		}
		words = append(words, strings.Fields(t)...)
	}
	text := strings.Join(words, " ")
	depth := 0
	for i := 0; i+1 < len(text); i++ {
		switch text[i] {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case '.':
			// A sentence ends at ". " outside parentheses, not after a
			// digit (0.1 %) or an abbreviation (et al., e.g.).
			abbrev := strings.HasSuffix(text[:i], " al") || strings.HasSuffix(text[:i], "e.g") || strings.HasSuffix(text[:i], "i.e")
			if depth == 0 && text[i+1] == ' ' && !abbrev && (i == 0 || text[i-1] < '0' || text[i-1] > '9') {
				return text[:i+1]
			}
		}
	}
	return text
}
