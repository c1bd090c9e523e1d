package confgen

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rocelab/examples"
	"rocelab/internal/scenario"
	"rocelab/internal/sonic"
)

// yangDir holds SONiC's YANG models for the tables config gen writes,
// copied from sonic-buildimage 086b03bd (each file's first line says
// where).
const yangDir = "../sonic/testdata/yang"

// yangStmt is a YANG statement that opens a block on its line.
var yangStmt = regexp.MustCompile(`^\s*(container|list|leaf|leaf-list|grouping|choice|case|uses)\s+([A-Za-z0-9_:-]+)`)

// modelFields reads the models' CONFIG_DB tables: each top container
// below the module's container is a table, and the leaves of its lists
// (not of a list nested in a list) are the fields a row may have. A map
// table (DSCP_TO_TC_MAP) nests a list of from/to pairs: its field names
// are its own values, so it maps to nil.
func modelFields(t *testing.T) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(yangDir, "*.yang"))
	if err != nil || len(files) < 10 {
		t.Fatalf("%d models (%v)", len(files), err)
	}
	quoted := regexp.MustCompile(`"[^"]*"|'[^']*'`)
	tables := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		type block struct{ kind, name string }
		var stack []block
		for _, line := range strings.Split(string(data), "\n") {
			line, _, _ = strings.Cut(quoted.ReplaceAllString(line, `""`), "//")
			opens, closes := strings.Count(line, "{"), strings.Count(line, "}")
			if m := yangStmt.FindStringSubmatch(line); m != nil && opens > 0 {
				kind, name := m[1], m[2]
				var lists []string
				table := ""
				for i, b := range stack {
					if b.kind == "container" && i == 2 && stack[1].kind == "container" {
						table = b.name
					}
					if b.kind == "list" {
						lists = append(lists, b.name)
					}
				}
				switch {
				case kind == "container" && len(stack) == 2 && stack[1].kind == "container":
					if tables[name] == nil {
						tables[name] = map[string]bool{}
					}
				case table == "" || tables[table] == nil:
				case kind == "list" && len(lists) == 1:
					tables[table] = nil // a map table: a list in a list
				case (kind == "leaf" || kind == "leaf-list") && len(lists) == 1:
					tables[table][name] = true
				}
				stack = append(stack, block{kind, name})
				opens--
			}
			for ; opens > 0; opens-- {
				stack = append(stack, block{})
			}
			for ; closes > 0 && len(stack) > 0; closes-- {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return tables
}

// TestGeneratedFieldsInModels: every table `config gen --target sonic`
// writes for the examples is a container of SONiC's YANG models, and every
// field of its rows a leaf of the table's list (the values are CheckYANG's
// concern). A misspelt field (xoff_th) or a table SONiC does not model
// would load into CONFIG_DB and be ignored by the daemons.
func TestGeneratedFieldsInModels(t *testing.T) {
	model := modelFields(t)
	for _, want := range []struct{ table, field string }{{"BUFFER_PROFILE", "xoff"}, {"WRED_PROFILE", "green_min_threshold"}, {"PORT_QOS_MAP", "pfc_enable"}, {"PFC_WD", "detection_time"}} {
		if !model[want.table][want.field] {
			t.Fatalf("the model reader misses %s %s: %v", want.table, want.field, model[want.table])
		}
	}
	if f, ok := model["DSCP_TO_TC_MAP"]; !ok || f != nil {
		t.Fatalf("DSCP_TO_TC_MAP read as %v, want a map table", f)
	}
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		data, _ := examples.FS.ReadFile(name)
		s, err := scenario.LoadDescription(name, data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Generate("sonic", s, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var db sonic.Rows
		if err := json.Unmarshal(out.Config, &db); err != nil {
			t.Fatal(err)
		}
		for table, rows := range db {
			fields, ok := model[table]
			if !ok {
				t.Errorf("%s: table %s is in none of the models", name, table)
				continue
			}
			for key, row := range rows {
				for f := range row {
					checked++
					if fields != nil && !fields[f] {
						t.Errorf("%s: %s|%s field %q is not a leaf of %s's model", name, table, key, f, table)
					}
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("%d fields checked", checked)
	}
}
