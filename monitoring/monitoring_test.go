// Package monitoring holds the Prometheus rules, their promtool unit tests
// and the Grafana dashboard of rocelab exporter; this test checks them.
package monitoring

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/prometheus/prometheus/promql/parser"

	"rocelab/internal/exporter"
)

// promtool returns the promtool binary, or skips the test.
func promtool(t *testing.T) string {
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (apt-get install prometheus; .ci/run installs it): rules not checked")
	}
	return p
}

func TestPromtoolCheckRules(t *testing.T) {
	out, err := exec.Command(promtool(t), "check", "rules", "rules.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
}

func TestPromtoolTestRules(t *testing.T) {
	out, err := exec.Command(promtool(t), "test", "rules", "rules_test.yml").CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool test rules did not report SUCCESS:\n%s", out)
	}
}

// ruleFile is the part of rules.yml the checks need.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Record string `yaml:"record"`
			Alert  string `yaml:"alert"`
			Expr   string `yaml:"expr"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func loadRules(t *testing.T) ruleFile {
	data, err := os.ReadFile("rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.Unmarshal(data, &rf); err != nil {
		t.Fatal(err)
	}
	return rf
}

// known is every name an expression may use: the exporter's metrics, the
// recording rules' names and ALERTS.
func known(t *testing.T) map[string]bool {
	k := map[string]bool{"ALERTS": true}
	for _, n := range exporter.MetricNames() {
		k[n] = true
	}
	for _, g := range loadRules(t).Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				k[r.Record] = true
			}
		}
	}
	return k
}

// checkExpr parses expr and reports every metric it names that is not in
// known.
func checkExpr(t *testing.T, where, expr string, known map[string]bool) {
	t.Helper()
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		t.Errorf("%s: %q does not parse: %v", where, expr, err)
		return
	}
	n := 0
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			n++
			if !known[vs.Name] {
				t.Errorf("%s: %q names %q, which rocelab exporter does not export", where, expr, vs.Name)
			}
		}
		return nil
	})
	if n == 0 {
		t.Errorf("%s: %q names no metric", where, expr)
	}
}

func TestRulesNameExportedMetrics(t *testing.T) {
	k := known(t)
	for _, g := range loadRules(t).Groups {
		for _, r := range g.Rules {
			checkExpr(t, "rules.yml "+r.Record+r.Alert, r.Expr, k)
		}
	}
}

// grafanaVar matches a Grafana variable: $name, ${name} or [[name]].
var grafanaVar = regexp.MustCompile(`\$\{?(\w+)\}?|\[\[(\w+)\]\]`)

// substitute replaces Grafana's variables by values PromQL accepts where
// they stand: durations for the interval variables, a regexp otherwise.
func substitute(expr string) string {
	return grafanaVar.ReplaceAllStringFunc(expr, func(v string) string {
		switch strings.Trim(v, "${}[]") {
		case "__rate_interval", "__interval", "__range":
			return "5m"
		}
		return ".*"
	})
}

type dsRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type fieldUnit struct {
	Defaults struct {
		Unit string `json:"unit"`
	} `json:"defaults"`
}

// checkShape refuses two query shapes that lie: "a + b or vector(0)",
// which shows 0 when either side has no series (the whole sum is empty,
// so vector(0) replaces it; each side needs its own "or vector(0)"), and a
// sum in a percent panel, which adds ratios of different ports past 100 %.
func checkShape(t *testing.T, where, expr, unit string) {
	t.Helper()
	e, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return // checkExpr reports it
	}
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		switch b := n.(type) {
		case *parser.BinaryExpr:
			if b.Op == parser.LOR {
				if l, ok := unparen(b.LHS).(*parser.BinaryExpr); ok && l.Op.IsOperator() && l.Op != parser.LOR && l.Op != parser.LAND && l.Op != parser.LUNLESS && !l.Op.IsComparisonOperator() {
					t.Errorf("%s: %q: \"a %s b or vector(0)\" hides one side when the other has no series; give each side its own \"or vector(0)\"", where, expr, l.Op)
				}
			}
		case *parser.AggregateExpr:
			if b.Op == parser.SUM && unit == "percentunit" {
				t.Errorf("%s: %q sums ratios in a percent panel: use max, or one series per port", where, expr)
			}
		}
		return nil
	})
}

func unparen(e parser.Expr) parser.Expr {
	for {
		p, ok := e.(*parser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

func TestDashboardQueries(t *testing.T) {
	data, err := os.ReadFile("grafana/rocelab.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title      string    `json:"title"`
			Type       string    `json:"type"`
			Datasource *dsRef    `json:"datasource"`
			FieldCfg   fieldUnit `json:"fieldConfig"`
			Targets    []struct {
				Expr       string `json:"expr"`
				Datasource *dsRef `json:"datasource"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Query      any    `json:"query"`
				Datasource *dsRef `json:"datasource"`
			} `json:"list"`
		} `json:"templating"`
		Inputs []any `json:"__inputs"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana/rocelab.json is not a dashboard: %v", err)
	}
	k := known(t)
	exprs := 0
	// The data source is a template variable, so that a provisioned copy
	// works as an imported one does: no __inputs, every query on
	// ${datasource}.
	if len(dash.Inputs) > 0 {
		t.Error("__inputs: the data source must be the datasource variable, not an import-time input")
	}
	onVar := func(what string, d *dsRef) {
		if d == nil || d.UID != "${datasource}" || d.Type != "prometheus" {
			t.Errorf("%s: data source %+v, want the ${datasource} variable", what, d)
		}
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		onVar("panel "+p.Title, p.Datasource)
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs++
			onVar("panel "+p.Title+" query", tg.Datasource)
			e := substitute(tg.Expr)
			checkExpr(t, "panel "+p.Title, e, k)
			checkShape(t, "panel "+p.Title, e, p.FieldCfg.Defaults.Unit)
		}
	}
	lv := regexp.MustCompile(`^label_values\((\w+),\s*\w+\)$`)
	hasDS := false
	for _, v := range dash.Templating.List {
		if v.Type == "datasource" {
			hasDS = v.Name == "datasource" && v.Query == "prometheus"
			continue
		}
		onVar("variable "+v.Name, v.Datasource)
		q, _ := v.Query.(map[string]any)
		def, _ := q["query"].(string)
		m := lv.FindStringSubmatch(def)
		if m == nil || !k[m[1]] {
			t.Errorf("variable %s: %q is not label_values of an exported metric", v.Name, def)
		}
	}
	if !hasDS {
		t.Error("no datasource variable of type prometheus")
	}
	if exprs < 15 {
		t.Errorf("only %d queries; the dashboard lost panels", exprs)
	}
	// The four targets, per-priority pause time, ECN/CNP, retransmissions
	// and throughput each have a panel.
	for _, want := range []string{"pause ratio", "Lossless-class discards", "RoCE loss", "Link flaps", "Pause time per priority", "ECN marks and CNPs", "Retransmissions", "Per-port throughput"} {
		found := false
		for _, p := range dash.Panels {
			found = found || strings.Contains(p.Title, want)
		}
		if !found {
			t.Errorf("no panel titled like %q", want)
		}
	}
}

// grafanaSchemaDir is where `.ci/run` installs @grafana/schema and the
// TypeScript compiler from the npm registry (ROCELAB_GRAFANA_SCHEMA).
func grafanaSchemaDir(t *testing.T) (dir, node string) {
	dir = os.Getenv("ROCELAB_GRAFANA_SCHEMA")
	node, err := exec.LookPath("node")
	if dir == "" || err != nil {
		t.Skip("ROCELAB_GRAFANA_SCHEMA not set or no node (.ci/run installs @grafana/schema and typescript with npm): dashboard schema not checked")
	}
	for _, p := range []string{"node_modules/@grafana/schema/package.json", "node_modules/typescript/bin/tsc"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Fatalf("ROCELAB_GRAFANA_SCHEMA=%s: %v", dir, err)
		}
	}
	return dir, node
}

// TestDashboardSchema type-checks grafana/rocelab.json against Grafana's
// own schema package (@grafana/schema's Dashboard, the classic JSON
// model): the JSON is written as a TypeScript object literal of that type,
// with each enum accepting its string values, and compiled with tsc
// --strict. Unknown fields, wrong types and missing required fields fail.
func TestDashboardSchema(t *testing.T) {
	dir, node := grafanaSchemaDir(t)
	data, err := os.ReadFile("grafana/rocelab.json")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	src.WriteString("import type { Dashboard } from '@grafana/schema';\n")
	src.WriteString("type Json<T> = T extends string ? `${T}` : T extends number | boolean | null | undefined ? T : T extends ReadonlyArray<infer U> ? Array<Json<U>> : T extends object ? { [K in keyof T]: Json<T[K]> } : T;\n")
	src.WriteString("export const dashboard: Json<Dashboard> = ")
	src.Write(data)
	src.WriteString(";\n")
	check := filepath.Join(dir, fmt.Sprintf("rocelab-dashboard-%d.ts", os.Getpid()))
	if err := os.WriteFile(check, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(check)
	out, err := exec.Command(node, filepath.Join(dir, "node_modules/typescript/bin/tsc"), "--noEmit", "--strict", "--target", "es2020",
		"--module", "nodenext", "--moduleResolution", "nodenext", "--skipLibCheck", check).CombinedOutput()
	if err != nil {
		t.Errorf("grafana/rocelab.json does not conform to @grafana/schema's Dashboard (tsc; line numbers are the JSON's + 3):\n%s", out)
	}
}
