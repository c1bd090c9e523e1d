package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// TestLintStandInPGUnwritten: a whole CONFIG_DB (real, sonic-utilities'
// DellEMC-Z9264f, testdata/corpus/sonic-stock) under the traditional
// buffer model has no CABLE_LENGTH; with its BUFFER_PG 3-4 rows removed,
// RoCE's priority group 3 is left to buffermgrd, which writes no lossless
// profile for a port without a cable length (or with 0m, or one no
// pg_profile_lookup.ini row matches: "300 m", "40"), so pfc.pg.lossy
// fires; so it does under the dynamic buffer model, whose buffermgrd adds
// no group from pfc_enable, and (warn, not config.not_judged) with every
// buffer table removed, buffermgrd waiting for ingress_lossless_pool. It
// does not when the ports have a cable length under the traditional
// model, or on a fragment without DEVICE_METADATA.
// The fix names the row buffermgrd writes, the port's pfc_enable groups
// merged (<port>|3-4), and the release since which it reads pfc_enable.
func TestLintStandInPGUnwritten(t *testing.T) {
	variant := func(edit func(db map[string]map[string]any)) string { return editedDB(t, z9264f, edit) }
	noRows := func(db map[string]map[string]any) {
		for k := range db["BUFFER_PG"] {
			if strings.HasSuffix(k, "|3-4") {
				delete(db["BUFFER_PG"], k)
			}
		}
	}
	cables := func(length string) func(db map[string]map[string]any) {
		return func(db map[string]map[string]any) {
			noRows(db)
			setCables(db, length)
		}
	}
	for _, c := range []struct {
		what string
		edit func(db map[string]map[string]any)
		want string // in the finding's title; "" for none
	}{
		{"as copied", func(map[string]map[string]any) {}, ""},
		{"PG 3-4 rows removed", noRows, "has no BUFFER_PG row, which the traditional buffer model leaves to buffermgrd, but the port has no cable length"},
		{"rows removed, cables 40m", cables("40m"), ""},
		{"rows removed, cables 0m", cables("0m"), "but the port has cable length 0m"},
		{"rows removed, cables 300 m", cables("300 m"), "but the port has unparseable cable length"},
		{"rows removed, cables 40 (no unit)", cables("40"), "but the port has unparseable cable length"},
		{"buffer tables removed", func(db map[string]map[string]any) {
			for _, t := range []string{"BUFFER_POOL", "BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} {
				delete(db, t)
			}
		}, "the config holds no BUFFER_PG or BUFFER_PROFILE row and no BUFFER_POOL ingress_lossless_pool"},
		{"buffer tables removed but a lossy pool", func(db map[string]map[string]any) {
			for _, t := range []string{"BUFFER_PROFILE", "BUFFER_PG", "BUFFER_QUEUE", "BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"} {
				delete(db, t)
			}
			delete(db["BUFFER_POOL"], "ingress_lossless_pool")
		}, "the config holds no BUFFER_PG or BUFFER_PROFILE row and no BUFFER_POOL ingress_lossless_pool"},
		{"rows removed, dynamic model", func(db map[string]map[string]any) {
			noRows(db)
			db["DEVICE_METADATA"]["localhost"].(map[string]any)["buffer_model"] = "dynamic"
		}, "has no BUFFER_PG row, and under the dynamic buffer model buffermgrd adds none from pfc_enable"},
		{"dynamic model, rows kept", func(db map[string]map[string]any) {
			db["DEVICE_METADATA"]["localhost"].(map[string]any)["buffer_model"] = "dynamic"
		}, ""},
		{"rows removed, a fragment", func(db map[string]map[string]any) {
			noRows(db)
			delete(db, "DEVICE_METADATA")
		}, ""},
	} {
		var got []string
		for _, fd := range lintFiles(t, variant(c.edit)).Findings {
			if fd.ID == "config.not_judged" && strings.Contains(fd.Fix, "whole CONFIG_DB") {
				t.Errorf("%s: a whole CONFIG_DB told to give the whole CONFIG_DB: %s", c.what, fd.Title)
			}
			if fd.ID == "pfc.pg.lossy" {
				got = append(got, fd.Title)
				if c.what == "PG 3-4 rows removed" && (!strings.Contains(fd.Fix, "the port's pfc_enable groups (e.g. BUFFER_PG <port>|3-4)") || !strings.Contains(fd.Mechanism, "since SONiC 202205")) {
					t.Errorf("%s: the fix or mechanism names no merged pfc_enable row or version: %s / %s", c.what, fd.Fix, fd.Mechanism)
				}
				if strings.HasPrefix(c.what, "buffer tables removed") != (fd.Severity == doctor.Warn) {
					t.Errorf("%s: severity %v", c.what, fd.Severity)
				}
				if c.want != "" && len(fd.Evidence) < 2 {
					t.Errorf("%s: evidence %v, want the pfc_enable line and what shows why", c.what, fd.Evidence)
				}
			}
		}
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0], c.want) || !strings.Contains(got[0], "(66 ports)")) {
			t.Errorf("%s: got %q, want %q", c.what, got, c.want)
		}
	}
}

// z9264f is a whole CONFIG_DB of the stock corpus: sonic-utilities'
// DellEMC-Z9264f-C64, 66 ports at 100G and 10G, traditional buffer model,
// lossless profiles named as buffermgrd names them, no CABLE_LENGTH.
const z9264f = "utilities-db_migrator_input-config_db-qos_tables_db_field_value_reference_format_3_0_3.json"

// editedDB writes the stock config_db name, changed by edit, to a
// temporary config_db.json and returns its path.
func editedDB(t *testing.T, name string, edit func(db map[string]map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(stockDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var db map[string]map[string]any
	if err := json.Unmarshal(data, &db); err != nil {
		t.Fatal(err)
	}
	edit(db)
	out, err := json.MarshalIndent(db, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return tempFile(t, "config_db.json", string(out))
}

// setCables gives every port of db's PORT table the cable length length
// (CABLE_LENGTH|AZURE, as SONiC's templates write it).
func setCables(db map[string]map[string]any, length string) {
	az := map[string]any{}
	for port := range db["PORT"] {
		az[port] = length
	}
	db["CABLE_LENGTH"] = map[string]any{"AZURE": az}
}
