// Package browser drives a headless Chromium through the DevTools
// protocol on a pipe (--remote-debugging-pipe: JSON messages ended by a
// NUL byte on file descriptors 3 and 4), in plain Go, for tests that open
// a page and check what the browser saw: the requests it made, what it
// logged to the console, the DOM, and a screenshot.
//
// Chromium runs with a fresh profile, without background networking, and
// with every host name resolving to nothing, so a page that tries to reach
// anywhere fails there, and the attempt is still seen as a request.
package browser

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Find returns the Chromium to use: $ROCELAB_CHROMIUM, else the first of
// chromium, chromium-browser, google-chrome on the PATH.
func Find() (string, bool) {
	if p := os.Getenv("ROCELAB_CHROMIUM"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// Timeout bounds each protocol call and each page load.
const Timeout = 60 * time.Second

// A Browser is one running Chromium.
type Browser struct {
	cmd    *exec.Cmd
	out    io.WriteCloser
	stderr *lockedBuffer

	mu       sync.Mutex
	next     int64
	pending  map[int64]chan message
	sessions map[string]*Page
	dead     error
	done     chan struct{}
}

// message is a protocol message: a call's answer (ID), or an event.
type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *protoError     `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type protoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Start starts Chromium at path with a fresh profile in dir.
func Start(path, dir string) (*Browser, error) {
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChrome, theirEnd, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--no-default-browser-check",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,900",
		"--user-data-dir="+dir, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, theirEnd} // fds 3 and 4
	b := &Browser{cmd: cmd, out: ourEnd, stderr: &lockedBuffer{}, pending: map[int64]chan message{},
		sessions: map[string]*Page{}, done: make(chan struct{})}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	toChrome.Close()
	theirEnd.Close()
	go b.read(fromChrome)
	return b, nil
}

// read dispatches Chromium's messages until the pipe closes.
func (b *Browser) read(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.fail(fmt.Errorf("chromium closed the protocol pipe: %v", err))
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			b.fail(fmt.Errorf("chromium sent a message that is not JSON: %v", err))
			return
		}
		b.mu.Lock()
		if m.ID != 0 {
			if c, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				c <- m
			}
		} else if p, ok := b.sessions[m.SessionID]; ok {
			p.event(m)
		}
		b.mu.Unlock()
	}
}

// fail ends every call waiting for an answer.
func (b *Browser) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil {
		b.dead = err
		close(b.done)
	}
}

// call sends a method to the browser (session "") or a page's session and
// decodes its result into out (nil: ignored).
func (b *Browser) call(session, method string, params, out any) error {
	b.mu.Lock()
	if b.dead != nil {
		b.mu.Unlock()
		return b.dead
	}
	b.next++
	id := b.next
	c := make(chan message, 1)
	b.pending[id] = c
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	raw, err := json.Marshal(message{ID: id, Method: method, SessionID: session, Params: mustJSON(params)})
	if err != nil {
		return err
	}
	if _, err := b.out.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case m := <-c:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: %v", method, b.dead)
	case <-time.After(Timeout):
		return fmt.Errorf("%s: no answer in %v", method, Timeout)
	}
}

func mustJSON(v any) json.RawMessage {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // the callers' params are plain structs and maps
	}
	return raw
}

// Close ends Chromium and says what it wrote to stderr when it failed.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", nil, nil)
	b.out.Close()
	wait := make(chan error, 1)
	go func() { wait <- b.cmd.Wait() }()
	select {
	case <-wait:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-wait
	}
	return nil
}

// Alive reports whether Chromium still holds the protocol pipe open.
func (b *Browser) Alive() bool {
	select {
	case <-b.done:
		return false
	default:
		return true
	}
}

// Stderr is what Chromium wrote to stderr so far.
func (b *Browser) Stderr() string { return b.stderr.String() }

// lockedBuffer is a buffer one goroutine writes while another reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A Page is one tab and what the browser reported of it.
type Page struct {
	b               *Browser
	session, target string
	loaded          chan struct{}

	mu sync.Mutex
	// Requests are the URLs the page requested (the document included).
	requests []string
	// Errors are console errors, uncaught exceptions and errors the
	// browser logged for the page (a refused request, a policy violation).
	errors []string
}

// event records what a page's session reports.
func (p *Page) event(m message) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Method {
	case "Page.loadEventFired":
		select {
		case <-p.loaded:
		default:
			close(p.loaded)
		}
	case "Network.requestWillBeSent":
		var e struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			p.requests = append(p.requests, e.Request.URL)
		}
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &e) == nil && (e.Type == "error" || e.Type == "assert") {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, fmt.Sprint(a.Value, a.Description))
			}
			p.errors = append(p.errors, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			p.errors = append(p.errors, "exception: "+e.Details.Text+" "+e.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		if json.Unmarshal(m.Params, &e) == nil && e.Entry.Level == "error" {
			p.errors = append(p.errors, fmt.Sprintf("%s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	}
}

// Open opens url in a new tab, watching its requests, console and log,
// and waits until it has loaded.
func (b *Browser) Open(url string) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID, target: target.TargetID, loaded: make(chan struct{})}
	b.mu.Lock()
	b.sessions[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := b.call(p.session, m, nil, nil); err != nil {
			return nil, err
		}
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigating to %s: %s", url, nav.ErrorText)
	}
	select {
	case <-p.loaded:
	case <-b.done:
		return nil, b.dead
	case <-time.After(Timeout):
		return nil, fmt.Errorf("%s did not load in %v", url, Timeout)
	}
	// One more round trip, so that events sent before it have arrived.
	var ignored any
	if err := p.Eval("document.readyState", &ignored); err != nil {
		return nil, err
	}
	return p, nil
}

// Requests returns the URLs the page requested so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Errors returns the errors reported for the page so far.
func (p *Page) Errors() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (returned by value, as JSON) into out.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return errors.New("evaluating the expression: " + r.Exception.Text)
	}
	if len(r.Result.Value) == 0 {
		return errors.New("the expression has no value")
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot returns a PNG of the whole page, at most maxHeight CSS
// pixels of it.
func (p *Page) Screenshot(maxHeight float64) ([]byte, error) {
	var m struct {
		Content struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := p.b.call(p.session, "Page.getLayoutMetrics", nil, &m); err != nil {
		return nil, err
	}
	clip := map[string]any{"x": 0, "y": 0, "width": m.Content.Width, "height": min(m.Content.Height, maxHeight), "scale": 1}
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.b.call(p.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// Close closes the tab.
func (p *Page) Close() error {
	p.b.mu.Lock()
	delete(p.b.sessions, p.session)
	p.b.mu.Unlock()
	return p.b.call("", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
}
