package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// start starts Chromium for a test, or skips it when there is none.
func start(t *testing.T) *Browser {
	t.Helper()
	path, ok := Find()
	if !ok {
		t.Skip("chromium not installed (apt-get install chromium; .ci/run installs it): browser checks not run")
	}
	b, err := Start(path, t.TempDir())
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// The watch is real: a page that reaches for another host and logs an
// error is caught doing both, and a page that does neither is clean.
func TestSeesRequestsAndErrors(t *testing.T) {
	b := start(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	good := filepath.Join(dir, "good.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><title>bad</title><img src="http://example.invalid/x.png" alt="">`+
		`<script>console.error("broken on purpose"); undefinedFunction();</script>`), 0o644)
	os.WriteFile(good, []byte(`<!DOCTYPE html><title>good</title><p>nothing else</p>`), 0o644)

	p, err := b.Open("file://" + bad)
	if err != nil {
		t.Fatal(err, b.Stderr())
	}
	if reqs := p.Requests(); !slices.Contains(reqs, "http://example.invalid/x.png") {
		t.Errorf("the image request was not seen: %q", reqs)
	}
	errs := strings.Join(p.Errors(), "\n")
	for _, want := range []string{"broken on purpose", "undefinedFunction"} {
		if !strings.Contains(errs, want) {
			t.Errorf("error %q not seen in:\n%s", want, errs)
		}
	}
	p, err = b.Open("file://" + good)
	if err != nil {
		t.Fatal(err)
	}
	if reqs := p.Requests(); len(reqs) != 1 || reqs[0] != "file://"+good {
		t.Errorf("a plain page requested %q", reqs)
	}
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("a plain page logged errors: %q", errs)
	}
	var title string
	if err := p.Eval("document.title", &title); err != nil || title != "good" {
		t.Errorf("title %q, %v", title, err)
	}
	png, err := p.Screenshot(2000)
	if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("screenshot: %d bytes, %v", len(png), err)
	}
}
