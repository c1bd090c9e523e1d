package main

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"rocelab/examples"
	"rocelab/internal/scenario"
)

// exampleNames lists the embedded examples.
func exampleNames() []string {
	names, _ := fs.Glob(examples.FS, "*.yaml")
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".yaml")
	}
	return names
}

// completeExamples completes an example name.
func completeExamples(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return exampleNames(), cobra.ShellCompDirectiveNoFileComp
}

// completeFiles completes file names with the given extensions.
func completeFiles(exts ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// completePorts completes --pcap-at with the ports of the scenario the
// command line names (FILE or --example, else the default), as NODE/pN.
func completePorts(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	example, _ := cmd.Flags().GetString("example")
	var s *scenario.Scenario
	var err error
	if len(args) == 1 && args[0] != "-" {
		s, err = scenario.LoadFile(args[0])
	} else {
		s, err = loadExample(example)
	}
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveError
	}
	var out []string
	for _, n := range s.Topo.Nodes {
		if !strings.HasPrefix(n.Name, prefix) && !strings.HasPrefix(prefix, n.Name) {
			continue
		}
		for p := 0; p < n.Ports; p++ {
			out = append(out, fmt.Sprintf("%s/p%d", n.Name, p))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
