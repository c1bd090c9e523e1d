package junos

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rocelab/internal/pos"
)

// TestParseAMDExample reads AMD's QFX5240 class-of-service example
// (testdata/corpus/junos): the statement tree, with places.
func TestParseAMDExample(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/junos/rocm-qfx5240-dcqcn-class-of-service.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !IsConfig(data) {
		t.Fatal("not recognised")
	}
	root, err := Parse("qfx.conf", data)
	if err != nil {
		t.Fatal(err)
	}
	fc := root.Find("forwarding-classes")
	if len(fc) != 1 || len(fc[0].Children) != 2 || fc[0].Children[1].Text() != "class NO-LOSS queue-num 4 no-loss pfc-priority 3" {
		t.Fatalf("forwarding-classes %+v", fc)
	}
	if p, ok := fc[0].Children[1].Word("pfc-priority"); !ok || p.Text != "3" || p.Line != 45 || p.Col != 52 {
		t.Errorf("pfc-priority %+v, want 3 at 45:52", p)
	}
	// The classifier and the interface's binding of it are both `dscp
	// mydscp`: one with the forwarding classes, one a leaf.
	var withChildren int
	for _, d := range root.Find("dscp") {
		if len(d.Words) == 2 && d.Words[1].Text == "mydscp" && len(d.Children) > 0 {
			withChildren++
		}
	}
	if withChildren != 1 {
		t.Errorf("%d dscp mydscp classifiers with classes, want 1", withChildren)
	}
	if s := root.Find("s1"); len(s) != 1 || len(s[0].Children) != 2 || s[0].Children[1].Text() != "explicit-congestion-notification" {
		t.Errorf("scheduler s1 %+v", s)
	}
}

// TestDSCP: code points as bits, numbers or aliases.
func TestDSCP(t *testing.T) {
	for in, want := range map[string]int{"011010": 26, "110000": 48, "26": 26, "af31": 26, "cs6": 48, "ef": 46, "be": 0} {
		if got, ok := DSCP(in); !ok || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"64", "af51", "0110", "x"} {
		if _, ok := DSCP(bad); ok {
			t.Errorf("%s read as a DSCP", bad)
		}
	}
}

// TestParseComments: annotations (/* */ over several lines) and # lines
// are not statements.
func TestParseComments(t *testing.T) {
	root, err := Parse("x", []byte("/* a note\n   over lines */\n# a comment\nforwarding-classes {\n    class A queue-num 3; /* inline */\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Children) != 1 || root.Children[0].Text() != "forwarding-classes" || root.Children[0].Children[0].Text() != "class A queue-num 3" {
		t.Errorf("tree %+v", root.Children)
	}
}

// TestParseErrors: unbalanced braces are errors at their place.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"a {\n  b;\n", "1:1: \"a\": '{' not closed"},
		{"a;\n}\n", "2:1: '}' without '{'"},
		{"a {\n  b\n}\n", "3:1: ';' expected before '}'"},
	} {
		_, err := Parse("x.conf", []byte(c.text))
		var pe *pos.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "x.conf:"+c.want) {
			t.Errorf("%q: %v, want x.conf:%s", c.text, err, c.want)
		}
	}
}

// FuzzParse: no input panics, and a refusal names a place in it.
func FuzzParse(f *testing.F) {
	f.Add([]byte("forwarding-classes {\n    class NO-LOSS queue-num 4 no-loss pfc-priority 3;\n}\nclassifiers {\n    dscp d {\n        forwarding-class NO-LOSS {\n            loss-priority low code-points [ 011010 af31 ];\n        }\n    }\n}\n"))
	f.Add([]byte("[edit class-of-service]\nuser@sw# set forwarding-classes class N queue-num 3\nset classifiers dscp d forwarding-class N loss-priority low code-points [ 011010 \"af31\" ]\ndelete interfaces\n"))
	f.Add([]byte("## Last commit\nversion 23.4R2-S5.4-EVO;\nsystem {\n    host-name leaf1;\n}\ninterfaces {\n    et-0/0/0 {\n        mtu 9216;\n    }\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		Whole(data)
		if _, err := Parse("f.conf", data); !pos.Placed(err) {
			t.Fatalf("error without a place: %v", err)
		}
	})
}

// TestWhole: a whole configuration, as `show configuration` prints it
// (Juniper's JVD AI/ML inference frontend leaf, testdata/corpus/junos),
// is a Junos configuration though it has no class-of-service: its QoS is
// absent, not its kind unknown. Its set form likewise; a class-of-service
// cut is not whole, and neither is a text that merely begins "version".
func TestWhole(t *testing.T) {
	data, err := os.ReadFile("../../testdata/corpus/junos/jvd-aiml-inference-frontend-leaf1-qfx5130-32cd-no-cos.conf")
	if err != nil {
		t.Fatal(err)
	}
	if !Whole(data) || !IsConfig(data) {
		t.Fatal("the JVD frontend leaf's whole configuration is not recognised")
	}
	for in, want := range map[string]bool{
		"## Last commit: 2024-01-01 by admin\nversion 23.4R2;\nsystem {\n    host-name a;\n}\n":                true,
		"set version 22.2R3\nset system host-name a\nset interfaces et-0/0/0 mtu 9216\n":                       true,
		"class-of-service {\n    forwarding-classes {\n        class NO-LOSS queue-num 4 no-loss;\n    }\n}\n": false,
		"version 2\ninterfaces {\n}\n":                  false,
		"version 1.0;\nfoo {\n    system {\n    }\n}\n": false,
		// The command echoed above its output.
		"show configuration |no-more\nversion 23.4R2;\nsystem {\n    host-name a;\n}\n":                        true,
		"user@leaf1> show configuration | display set | no-more\nset version 22.2R3\nset system host-name a\n": true,
	} {
		if got := Whole([]byte(in)); got != want {
			t.Errorf("Whole(%q) = %v, want %v", in, got, want)
		}
		if _, err := Parse("w.conf", []byte(in)); want && err != nil {
			t.Errorf("Parse(%q): %v", in, err)
		}
	}
}
