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
	// sonic-mgmt's real pfc_wd_config.j2 is valid JSON whose PFC_WD row
	// key is "{{ pfc_wd_interface_list }}": a template, refused at the
	// key, not a PFC_WD row of a port so named. A SYNTHETIC config with
	// "{{ }}" in a value (a field left unrendered, as sonic-buildimage
	// #15102's running config has) is still read.
	wd := filepath.Join("testdata", "mgmt-pfc_wd_config.j2")
	if _, err := Lint([]string{wd}, nil); err == nil || !errors.Is(err, errNotConfig) || !strings.HasPrefix(err.Error(), wd+`:3:9: "{{ pfc_wd_interface_list }}": a Jinja2 expression as a row's key`) {
		t.Errorf("pfc_wd_config.j2: %v", err)
	}
	if _, err := Lint([]string{tempFile(t, "config_db.json", `{"PORT": {"Ethernet0": {"speed": "100000"}}, "DEVICE_METADATA": {"localhost": {"hostname": "{{ inventory_hostname }}"}}}`)}, nil); err != nil {
		t.Errorf("JSON with {{ in a value: %v", err)
	}
	ok := tempFile(t, "config_db.json", `{"DEVICE_METADATA": {"localhost": {"hostname": "{% not a template %}"}}}`)
	if _, err := Lint([]string{ok}, nil); err != nil {
		t.Errorf("JSON with {%% in a value: %v", err)
	}
	// Synthetic NCCL launch script: bash's ${#array[@]} and ${#var} are
	// lengths, not Jinja2 comments, even with a "#}" further down.
	script := tempFile(t, "launch-synthetic.sh", "#!/bin/bash\nHOSTS=(gpu1 gpu2)\nNP=$(( ${#HOSTS[@]} * 8 ))\nN=${#NP}\necho \"{#}\"\nmpirun -np $NP all_reduce_perf -b 8 -e 8G\n")
	if _, err := Lint([]string{script}, nil); err != nil && strings.Contains(err.Error(), "Jinja2") {
		t.Errorf("shell script with ${#: %v", err)
	}
	for in, want := range map[string]bool{"a {# open only": false, "x ${# y #}": false, "a {% if x %}": true, "{#\n c\n#}": true, "{% x": false} {
		if _, _, got := jinjaAt([]byte(in)); got != want {
			t.Errorf("jinjaAt(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzJinjaAt: any input gives a position inside it, or none.
func FuzzJinjaAt(f *testing.F) {
	for _, s := range []string{"{%- set x = 1 %}\n{}", "{\n  \"A\": {}\n}\n{# c #}", `{"a": "{%"}`, "", "{%", "\n\n  {#", "N=${#HOSTS[@]} #}", "x {# a\n b #}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		line, col, ok := jinjaAt(data)
		if ok && (line < 1 || col < 1 || line > strings.Count(string(data), "\n")+1 || col > len(data)) {
			t.Errorf("%q: %d:%d", data, line, col)
		}
	})
}
