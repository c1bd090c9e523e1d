package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"rocelab/examples"
)

// TestDashboardOnEveryExample feeds a real Prometheus from one twin
// exporter per example (monitoring/rules.yml loaded for the recording
// rules) and runs every query of monitoring/grafana/rocelab.json against
// it as Grafana would, with the instance variable at "all": every query
// must succeed, every panel must show data on some example, and no panel
// in percent may pass 100 % on any example.
func TestDashboardOnEveryExample(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (apt-get install prometheus; .ci/run installs it): dashboard queries not run")
	}
	names, err := fs.Glob(examples.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cfg strings.Builder
	rules, err := os.ReadFile("../../monitoring/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "rules.yml"), rules)
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: 5s\n  scrape_timeout: 5s\n  evaluation_interval: 5s\nrule_files: [%s]\nscrape_configs:\n", filepath.Join(dir, "rules.yml"))
	for _, name := range names {
		addr := freeAddr(t)
		root := newRootCmd()
		// 1 ms of simulated time per wall-clock second: every example's
		// opening milliseconds, where its story is, during the test.
		root.SetArgs([]string{"exporter", "--twin", "../../examples/" + name, "--speed", "0.001", "--twin.step", "100ms",
			"--web.listen-address", addr, "--log.level", "error"})
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		errc := make(chan error, 1)
		go func() { errc <- root.ExecuteContext(ctx) }()
		t.Cleanup(func() {
			cancel()
			select {
			case <-errc:
			case <-time.After(10 * time.Second):
				t.Error("exporter did not stop")
			}
		})
		fmt.Fprintf(&cfg, "  - job_name: %s\n    static_configs: [{targets: ['%s']}]\n", strings.TrimSuffix(name, ".yaml"), addr)
	}
	writeFile(t, filepath.Join(dir, "prometheus.yml"), []byte(cfg.String()))
	promAddr := freeAddr(t)
	prom := exec.CommandContext(ctx, promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+promAddr)
	var promLog strings.Builder
	prom.Stdout, prom.Stderr = &promLog, &promLog
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = prom.Process.Kill()
		_ = prom.Wait()
		if t.Failed() {
			t.Logf("prometheus log:\n%s", promLog.String())
		}
	}()
	api := func(path string, v url.Values) (status string, values [][]float64, errText string) {
		resp, err := http.Get("http://" + promAddr + path + "?" + v.Encode())
		if err != nil {
			return "", nil, err.Error()
		}
		defer resp.Body.Close()
		var r struct {
			Status string `json:"status"`
			Error  string `json:"error"`
			Data   struct {
				Result []struct {
					Value  []any   `json:"value"`
					Values [][]any `json:"values"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return "", nil, err.Error()
		}
		for _, s := range r.Data.Result {
			var vs []float64
			pts := s.Values
			if s.Value != nil {
				pts = append(pts, s.Value)
			}
			for _, p := range pts {
				if len(p) == 2 {
					f, _ := strconv.ParseFloat(fmt.Sprint(p[1]), 64)
					vs = append(vs, f)
				}
			}
			values = append(values, vs)
		}
		return r.Status, values, r.Error
	}
	// Every target up, then some seconds of data for the 5-minute rates
	// and the recording rules.
	deadline := time.Now().Add(150 * time.Second)
	for {
		_, up, _ := api("/api/v1/query", url.Values{"query": {"up == 1"}})
		if len(up) == len(names) {
			break
		}
		if time.Now().After(deadline) {
			if resp, err := http.Get("http://" + promAddr + "/api/v1/targets"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				for _, m := range regexp.MustCompile(`"job":"([^"]+)".{0,400}?"lastError":"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(string(b), -1) {
					t.Logf("%s: %s", m[1], m[2])
				}
			}
			t.Fatalf("only %d of %d twin exporters up", len(up), len(names))
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(25 * time.Second)

	var dash struct {
		Panels []struct {
			Title    string `json:"title"`
			Type     string `json:"type"`
			FieldCfg struct {
				Defaults struct {
					Unit string `json:"unit"`
				} `json:"defaults"`
			} `json:"fieldConfig"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	data, err := os.ReadFile("../../monitoring/grafana/rocelab.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	// Grafana's variables as it sets them here: instance "All", and a
	// rate interval of four scrape intervals.
	vars := regexp.MustCompile(`\$\{?(\w+)\}?`)
	end := time.Now()
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		series, worst := 0, math.Inf(-1)
		for _, tg := range p.Targets {
			expr := vars.ReplaceAllStringFunc(tg.Expr, func(v string) string {
				if strings.Contains(v, "rate_interval") || strings.Contains(v, "__interval") {
					return "20s"
				}
				return ".*"
			})
			status, values, errText := api("/api/v1/query_range", url.Values{"query": {expr},
				"start": {strconv.FormatInt(end.Add(-15*time.Second).Unix(), 10)}, "end": {strconv.FormatInt(end.Unix(), 10)}, "step": {"5"}})
			if status != "success" {
				t.Errorf("panel %q: %s: %s", p.Title, expr, errText)
				continue
			}
			series += len(values)
			for _, vs := range values {
				for _, v := range vs {
					worst = math.Max(worst, v)
				}
			}
		}
		t.Logf("%-45s %4d series, max %g", p.Title, series, worst)
		if series == 0 {
			t.Errorf("panel %q shows nothing on any of the %d examples", p.Title, len(names))
		}
		// A port paused for the whole window is 100 %: Prometheus's
		// division can land one rounding step above (1.0000000000000002).
		if p.FieldCfg.Defaults.Unit == "percentunit" && worst > 1+1e-9 {
			t.Errorf("panel %q (percent) reaches %.1f %%", p.Title, 100*worst)
		}
	}
}
