// Package monitoring holds the Prometheus rules, their promtool unit tests
// and the Grafana dashboard of rocelab exporter; this test checks them.
package monitoring

import (
	"encoding/json"
	"os"
	"os/exec"
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

func TestDashboardQueries(t *testing.T) {
	data, err := os.ReadFile("grafana/rocelab.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana/rocelab.json is not a dashboard: %v", err)
	}
	k := known(t)
	exprs := 0
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs++
			checkExpr(t, "panel "+p.Title, substitute(tg.Expr), k)
		}
	}
	lv := regexp.MustCompile(`^label_values\((\w+),\s*\w+\)$`)
	for _, v := range dash.Templating.List {
		m := lv.FindStringSubmatch(v.Definition)
		if m == nil || !k[m[1]] {
			t.Errorf("variable %s: %q is not label_values of an exported metric", v.Name, v.Definition)
		}
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
