package nvue

import (
	"errors"
	"testing"

	"rocelab/internal/pos"
)

// FuzzNVUE runs the three readers on any text: none panics, an error
// names a line and column inside the text, and Resolve completes what a
// reader returns.
func FuzzNVUE(f *testing.F) {
	for _, name := range []string{"cl515-nv-show-qos-roce-single-ipool.txt", "cl515-nv-set-roce-sp2.txt", "cl551-air-workshop-applied-qos.yaml"} {
		f.Add(read(f, name))
	}
	f.Add([]byte("- set:\n    qos:\n      roce: {enable: on}\n      pfc:\n        p: {switch-priority: {'3': {}}, tx: enable}\n    interface:\n      swp1-4: {qos: {pfc: {profile: p}}}\n"))
	f.Add([]byte("nv set qos roce state disabled\nnv set qos roce mode lossless-single-ipool\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1
		// A lone CR ends a line of YAML too.
		for _, b := range loneCRToLF(data) {
			if b == '\n' {
				lines++
			}
		}
		for _, parse := range []func(string, []byte) (*Config, error){ParseYAML, ParseSet, ParseShowRoCE} {
			c, err := parse("f", data)
			var e *pos.Error
			switch {
			case err == nil:
				c.Resolve()
			case !errors.As(err, &e):
				t.Fatalf("%v: not a *pos.Error", err)
			case e.Line < 1 || e.Line > lines || e.Col < 1:
				t.Fatalf("%v: position outside the text (%d lines)", err, lines)
			}
		}
	})
}
