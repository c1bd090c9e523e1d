package scenario

import (
	"strings"
	"testing"

	"rocelab/examples"
)

// TestCheckDepth: every example passes; nesting past MaxDepth is refused
// at its line and column, in flow or block style, quotes and comments
// aside.
func TestCheckDepth(t *testing.T) {
	ents, _ := examples.FS.ReadDir(".")
	for _, e := range ents {
		if data, err := examples.FS.ReadFile(e.Name()); err == nil && strings.HasSuffix(e.Name(), ".yaml") {
			if err := CheckDepth(e.Name(), data); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
	}
	block := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		return b.String()
	}
	for _, c := range []struct {
		yaml string
		want string // "" = accepted
	}{
		{"a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n", ""},
		{"a: " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "\n", "f.yaml:1:67: nested 65 levels deep"},
		{"a: \"" + strings.Repeat("[", 200) + "\"\n# " + strings.Repeat("{", 200) + "\n", ""},
		{block(MaxDepth), ""},
		{block(MaxDepth + 1), "f.yaml:65:65: nested 65 levels deep"},
		{"x:\n" + strings.Repeat("- ", MaxDepth+1) + "1\n", "f.yaml:2:1: nested 66 levels deep"},
		// An apostrophe inside a plain scalar opens no quote.
		{"d: the job's class\na: " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "\n", "f.yaml:2:67: nested 65 levels deep"},
		{"d: ['it''s', \"a\\\"b\"]\na: " + strings.Repeat("[", MaxDepth) + "\n", "f.yaml:2:67: nested 65 levels deep"},
	} {
		err := CheckDepth("f.yaml", []byte(c.yaml))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.40q: %v", c.yaml, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.40q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}

// FuzzCheckDepth: any input is scanned without panic, and a file it
// accepts nests no deeper than MaxDepth flow collections.
func FuzzCheckDepth(f *testing.F) {
	f.Add([]byte("a: [1, {b: 2}]\n- - x\n"))
	f.Add([]byte("k:\n  'q[': \"\\\"{\"\n  # [[\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckDepth("f", data) == nil && strings.Count(string(data), "[") > 10*MaxDepth && !strings.ContainsAny(string(data), "\"'#]") {
			t.Errorf("accepted %d unclosed brackets", strings.Count(string(data), "["))
		}
	})
}
