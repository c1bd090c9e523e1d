package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestExporterPrometheusEndToEnd starts two twin exporters (incast-pfc and
// single-flow) behind TLS and basic auth, and a real Prometheus that
// scrapes them and evaluates monitoring/rules.yml: a wrong password gets
// 401, the right one the series, and the pause-ratio alert fires on
// incast-pfc and stays silent on single-flow.
func TestExporterPrometheusEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (apt-get install prometheus; .ci/run installs it): end-to-end test skipped")
	}
	dir := t.TempDir()
	certPEM, keyPEM := selfSignedCert(t)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFile(t, certFile, certPEM)
	writeFile(t, keyFile, keyPEM)
	const user, pass = "prometheus", "s3cret-scrape"
	hash, err := bcrypt.GenerateFromPassword([]byte(pass), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	writeFile(t, webConfig, []byte(fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  %s: %s\n", certFile, keyFile, user, hash)))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jobs := map[string]string{"incast": "../../examples/incast-pfc.yaml", "single": "../../examples/single-flow.yaml"}
	addrs := map[string]string{}
	for job, scen := range jobs {
		addr := freeAddr(t)
		addrs[job] = addr
		root := newRootCmd()
		root.SetArgs([]string{"exporter", "--twin", scen, "--speed", "0.01", "--twin.step", "50ms",
			"--web.listen-address", addr, "--web.config.file", webConfig, "--log.level", "warn"})
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
	}

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(addr, u, p string) (int, string) {
		req, _ := http.NewRequest("GET", "https://"+addr+"/metrics", nil)
		if u != "" {
			req.SetBasicAuth(u, p)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, _ := get(addrs["incast"], user, pass)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter never answered 200 (last %d)", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, _ := get(addrs["incast"], user, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401", code)
	}
	if code, _ := get(addrs["incast"], "", ""); code != http.StatusUnauthorized {
		t.Errorf("no credentials: status %d, want 401", code)
	}
	code, body := get(addrs["incast"], user, pass)
	for _, want := range []string{`rocelab_nic_pause_duration_seconds_total{device="mlx5_0",direction="rx",host="h0",netdev="eth0",port="1",priority="3"}`, `rocelab_exporter_scrape_success{collector="rdma",host="h17"} 1`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("right password: status %d, body lacks %s", code, want)
		}
	}

	// Prometheus evaluates rules.yml as committed, except that `for:`
	// waits are cut to 1s so that the test sees "firing" within seconds;
	// promtool test rules covers the waits.
	rules, err := os.ReadFile("../../monitoring/rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	rules = regexp.MustCompile(`(?m)^(\s+for:) \S+$`).ReplaceAll(rules, []byte("$1 1s"))
	writeFile(t, filepath.Join(dir, "rules.yml"), rules)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: [%s]\nscrape_configs:\n", filepath.Join(dir, "rules.yml"))
	for _, job := range []string{"incast", "single"} {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    scheme: https\n    tls_config: {ca_file: %s}\n    basic_auth: {username: %s, password: %s}\n    static_configs: [{targets: ['%s']}]\n", job, certFile, user, pass, addrs[job])
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
	query := func(q string) []map[string]string {
		resp, err := http.Get("http://" + promAddr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return nil
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil {
			return nil
		}
		var out []map[string]string
		for _, s := range r.Data.Result {
			out = append(out, s.Metric)
		}
		return out
	}
	start := time.Now()
	var firing []map[string]string
	for time.Since(start) < 45*time.Second {
		firing = query(`ALERTS{alertname="RoCEPFCPauseRatioHigh",alertstate="firing"}`)
		if len(firing) > 0 && len(query(`rocelab:pfc_pause_ratio:rate5m{job="single"}`)) > 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("pause-ratio alert firing after %.1fs on %d incast-pfc ports", time.Since(start).Seconds(), len(firing))
	if len(firing) == 0 {
		t.Fatal("RoCEPFCPauseRatioHigh never fired on incast-pfc")
	}
	for _, m := range firing {
		if m["job"] != "incast" {
			t.Errorf("RoCEPFCPauseRatioHigh fired on %v", m)
		}
	}
	if len(query(`up{job="single"} == 1`)) != 1 {
		t.Error("Prometheus does not scrape the single-flow exporter")
	}
	if got := query(`rocelab:pfc_pause_ratio:rate5m{job="single"}`); len(got) == 0 {
		t.Error("single-flow has no pause-ratio series: its silence would prove nothing")
	}
	if got := query(`ALERTS{alertname="RoCEPFCPauseRatioHigh",job="single"}`); len(got) != 0 {
		t.Errorf("RoCEPFCPauseRatioHigh active on single-flow: %v", got)
	}
}

// selfSignedCert returns a throwaway certificate and key for 127.0.0.1.
func selfSignedCert(t *testing.T) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "rocelab exporter test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// freeAddr returns a loopback address with a port free at the time.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
