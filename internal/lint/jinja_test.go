package lint

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestLintJinjaTemplate: SONiC's Jinja2 templates (real, sonic-buildimage's
// ACS-MSN2700 buffers_defaults_t1.j2 and Z9332F-O32 qos.json.j2) are
// refused at their first statement as templates to render, not as broken
// JSON; a config_db whose string value holds "{%" is still read.
func TestLintJinjaTemplate(t *testing.T) {
	for _, f := range []string{"bi-mlnx-msn2700-buffers_defaults_t1.j2", "bi-dell-z9332f-o32-qos.json.j2"} {
		path := filepath.Join("testdata", f)
		_, err := Lint([]string{path}, nil)
		if err == nil || !errors.Is(err, errNotConfig) || !strings.HasPrefix(err.Error(), path+":1:1: a Jinja2 template") || !strings.Contains(err.Error(), "config qos reload --dry_run") {
			t.Errorf("%s: %v", f, err)
		}
	}
	ok := tempFile(t, "config_db.json", `{"DEVICE_METADATA": {"localhost": {"hostname": "{% not a template %}"}}}`)
	if _, err := Lint([]string{ok}, nil); err != nil {
		t.Errorf("JSON with {%% in a value: %v", err)
	}
}

// FuzzJinjaAt: any input gives a position inside it, or none.
func FuzzJinjaAt(f *testing.F) {
	for _, s := range []string{"{%- set x = 1 %}\n{}", "{\n  \"A\": {}\n}\n{# c #}", `{"a": "{%"}`, "", "{%", "\n\n  {#"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line, col, ok := jinjaAt(data)
		if ok && (line < 1 || col < 1 || line > strings.Count(string(data), "\n")+1 || col > len(data)) {
			t.Errorf("%q: %d:%d", data, line, col)
		}
	})
}
