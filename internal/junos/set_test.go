package junos

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseSetQUADS reads QUADS's set-form class-of-service
// (testdata/corpus/junos) into the statements the braces form prints: a
// forwarding class's queue and `no-loss` given on two lines are one
// statement, as are a classifier's two code points and a drop profile's
// two fill levels, each word at its place.
func TestParseSetQUADS(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/junos/quads-juniper-roce-display-set.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised")
	}
	root, err := Parse("quads.conf", data)
	if err != nil {
		t.Fatal(err)
	}
	fc := root.Find("forwarding-classes")
	if len(fc) != 1 || len(fc[0].Children) != 4 || fc[0].Children[1].Text() != "class roce-lossless queue-num 3 no-loss" {
		t.Fatalf("forwarding-classes %+v", fc)
	}
	if w, ok := fc[0].Children[1].Has("no-loss"); !ok || w.Line != 12 || w.Col != 61 {
		t.Errorf("no-loss at %d:%d, want 12:61", w.Line, w.Col)
	}
	var cps []string
	for _, d := range root.Find("classifiers")[0].Find("forwarding-class") {
		if len(d.Words) == 2 && d.Words[1].Text == "roce-lossless" && len(d.Children) == 1 {
			cps = append(cps, d.Children[0].Text())
		}
	}
	if strings.Join(cps, "|") != "loss-priority low code-points 011010 011000|loss-priority low code-points 011" {
		t.Errorf("roce-lossless classifiers %q", cps)
	}
	if ip := root.Find("interpolate"); len(ip) != 1 || len(ip[0].Children) != 2 ||
		ip[0].Children[0].Text() != "fill-level 55 90" || ip[0].Children[1].Text() != "drop-probability 0 100" {
		t.Errorf("interpolate %+v", ip)
	}
	cnp := root.Find("storage-cnp")
	if len(cnp) != 1 || len(cnp[0].Find("pfc")) != 1 || cnp[0].Find("code-point")[0].Text() != "code-point 011" {
		t.Errorf("storage-cnp %+v", cnp)
	}
	if ifs := root.Find("ae0"); len(ifs) != 1 || len(ifs[0].Children) != 3 || ifs[0].Children[2].Find("ieee-802.1")[0].Text() != "ieee-802.1 STORAGE-CLASSIFIER-L2" {
		t.Errorf("ae0 %+v", ifs)
	}
}

// TestParseSetEdit: commands typed at a prompt below an `[edit …]`
// banner are relative to it, session commands are skipped, lines outside
// class-of-service are not read, and a `delete` is refused at its place.
func TestParseSetEdit(t *testing.T) {
	in := "[edit class-of-service]\nuser@switch# set forwarding-classes class NO-LOSS queue-num 3 no-loss pfc-priority 3\n" +
		"user@switch# set interfaces et-0/0/1 congestion-notification-profile cnp\n[edit]\nuser@switch# set interfaces et-0/0/1 mtu 9216\nuser@switch# commit\n"
	if !IsConfig([]byte(in)) {
		t.Fatal("not recognised")
	}
	root, err := Parse("s.conf", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Children) != 1 || root.Children[0].Text() != "class-of-service" || len(root.Children[0].Children) != 2 {
		t.Fatalf("tree %+v", root.Children)
	}
	if c := root.Find("et-0/0/1"); len(c) != 1 || c[0].Children[0].Text() != "congestion-notification-profile cnp" {
		t.Errorf("et-0/0/1 %+v", c)
	}
	_, err = Parse("s.conf", []byte("set class-of-service forwarding-classes class A queue-num 3\n  delete class-of-service forwarding-classes\n"))
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Col != 3 || !strings.Contains(pe.Msg, "display set") {
		t.Errorf("delete: %v", err)
	}
}

// A typed session echoes each level as a banner: `[edit class-of-service]`
// after `edit class-of-service` names the level the next commands are
// relative to, not a level further down; `up` and `exit` climb one, and a
// line set at the top after `[edit]` is outside class-of-service. Without
// the banners after the first (the session's echo cut), edit, up, exit
// and top alone move the level, to the same tree.
func TestParseSetEditBanners(t *testing.T) {
	banners := "[edit]\nuser@switch# edit class-of-service\n\n[edit class-of-service]\nuser@switch# set interfaces et-0/0/1 unit 0 classifiers dscp mydscp\n" +
		"user@switch# edit interfaces et-0/0/2\n\n[edit class-of-service interfaces et-0/0/2]\nuser@switch# set congestion-notification-profile cnp\nuser@switch# up\n\n" +
		"[edit class-of-service interfaces]\nuser@switch# set et-0/0/3 congestion-notification-profile cnp\nuser@switch# exit\n\n" +
		"[edit class-of-service]\nuser@switch# set forwarding-classes class NO-LOSS queue-num 3 no-loss\nuser@switch# top\n\n[edit]\nuser@switch# set interfaces et-0/0/1 mtu 9216\n"
	var script []string
	for i, line := range strings.Split(banners, "\n") {
		if i == 0 || !strings.HasPrefix(line, "[edit") {
			script = append(script, line)
		}
	}
	for _, in := range []string{banners, strings.Join(script, "\n")} {
		checkEditTree(t, in)
	}
}

func checkEditTree(t *testing.T, in string) {
	t.Helper()
	root, err := Parse("s.conf", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Children) != 1 || root.Children[0].Text() != "class-of-service" || len(root.Children[0].Children) != 2 {
		t.Fatalf("tree %+v", root.Children)
	}
	if c := root.Find("et-0/0/1"); len(c) != 1 || len(c[0].Children) != 1 || len(c[0].Find("dscp")) != 1 || c[0].Find("dscp")[0].Text() != "dscp mydscp" {
		t.Errorf("et-0/0/1 %+v", c)
	}
	for _, name := range []string{"et-0/0/2", "et-0/0/3"} {
		if c := root.Find(name); len(c) != 1 || len(c[0].Children) != 1 || c[0].Children[0].Text() != "congestion-notification-profile cnp" {
			t.Errorf("%s %+v", name, c)
		}
	}
}
