package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := execute(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCaptureCommand(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "corpus", "pcap", "dcb_pfc.pcap")
	code, out, _ := runCLI("capture", corpus)
	if code != 0 || !strings.Contains(out, "no RoCEv2 packets") || !strings.Contains(out, "PFC enabled on priorities") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI("capture", "--json", "--link-speed", "100G", "--bin", "1ms", corpus)
	var js struct {
		Packets         int    `json:"packets"`
		LinkSpeedSource string `json:"link_speed_source"`
		Bin             int64  `json:"bin_ps"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || code != 0 || js.Packets != 5 || js.LinkSpeedSource != "option" || js.Bin != 1e9 {
		t.Errorf("json: exit %d err %v %+v", code, err, js)
	}
}

func TestCaptureCommandBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(bad, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"capture", bad}, bad + ": not a pcap or pcapng file: bad magic 0x6c6c6568"},
		{[]string{"capture", filepath.Join(t.TempDir(), "missing.pcap")}, "no such file"},
		{[]string{"capture", "--link-speed", "fast", bad}, "--link-speed: expected a link rate"},
		{[]string{"capture", "--bin", "0us", bad}, "--bin: expected a positive duration"},
		{[]string{"capture"}, "capture takes one argument, got none"},
	} {
		code, out, errs := runCLI(c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
