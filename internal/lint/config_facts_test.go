package lint

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestConfigFactsLayout: sonic-mgmt's config_facts module returns a
// switch's CONFIG_DB with each row's key split at its first '|' into two
// levels ("BUFFER_PG": {"Ethernet4": {"3-4": {...}}}) under
// "ansible_facts"; lint must judge that rendering of sonic-utilities'
// counterpoll CONFIG_DB exactly as it judges the file itself, and so
// when it is pasted as Ansible's ad-hoc command prints it.
func TestConfigFactsLayout(t *testing.T) {
	const (
		facts = "../../testdata/corpus/sonic/mgmt-config_facts-render-utilities-counterpoll_input-config_db.json"
		plain = stockDir + "/utilities-counterpoll_input-config_db.json"
	)
	read := func(file, prefix string) []string {
		var got []string
		for _, f := range lintFiles(t, file).Findings {
			got = append(got, fmt.Sprint(f.Severity, " ", f.ID)+": "+strings.TrimPrefix(f.Title, prefix))
		}
		return got
	}
	want := read(plain, plain)
	got := read(facts, facts+" ansible_facts")
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("config_facts layout:\n%s\nthe file itself:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// As `ansible DUT -m config_facts` prints it: "DUT | SUCCESS => "
	// before the module's JSON (a SYNTHETIC paste of the real rendering).
	data, err := os.ReadFile(facts)
	if err != nil {
		t.Fatal(err)
	}
	pasted := tempFile(t, "adhoc-synthetic.txt", "str-msn2700-01 | SUCCESS => "+string(data))
	if got := read(pasted, pasted+" ansible_facts"); !slices.Equal(got, want) {
		t.Errorf("ad-hoc output:\n%s\nthe file itself:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
