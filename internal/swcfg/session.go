package swcfg

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"rocelab/internal/pos"
)

// A Session is the configuration a pasted CLI session of an industry-style
// switch CLI (EOS, NX-OS, OS10, AOS-CX, SONiC's KLISH) shows or types, read as an
// engineer reads it: what `show running-config` printed is kept as
// printed, a command typed at a configuration prompt
// (`leaf1(config-if-Et1)# mtu 9214`) is kept without its prompt and
// indented as the running-config would print it, and what the CLI said
// around them (exec commands, `Building configuration...`, `--More--`,
// `% Invalid input` and the command it refused) is blanked. Text has a
// line for each line of the paste, so lines keep their numbers.
type Session struct {
	Text []byte
	// Shift is, per line (0-based), how many columns a typed command
	// moved left when its prompt was taken off: its place in the paste is
	// its column in Text plus Shift.
	Shift []int
	// Excerpt is the `show running-config` command (or NX-OS's
	// `!Command:` header) that printed a part of the configuration, such
	// as `show running-config interface Ethernet1/1`: what it leaves out
	// is not known. Line 0: the paste shows no such command. Its line is
	// kept in Text as a comment ('!' before the paste's line).
	Excerpt Value
}

// prompt is an industry-style CLI prompt at the start of a line: the
// host name, the configuration mode in parentheses (none in exec mode),
// '#' or '>', then the command.
var prompt = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\((conf[^)\s]*)\))?[#>] ?`)
})

// more is a pager's `--More--` prompt with the backspaces, carriage
// returns and blanks a terminal uses to erase it.
var more = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*--More--(?:(?:[ \t]*[\x08\r]+)+| )?`) })

// printed are lines the CLI prints around a configuration.
var printed = []string{"Building configuration", "Current configuration :", "Enter configuration commands", "Copy completed", "[OK]"}

// ReadSession reads data as a pasted CLI session; false when no line
// carries a prompt or a pager's remnant (the data is a configuration
// file, read as it is).
func ReadSession(data []byte) (Session, bool) {
	lines := strings.Split(string(data), "\n")
	s := Session{Shift: make([]int, len(lines))}
	type typed struct {
		i    int
		mode string
	}
	var cmds []typed
	found := false
	// refused are the typed commands the CLI answered with a `% `
	// message that is not a warning (after a `^` marker line).
	refused := map[int]bool{}
	for i, raw := range lines {
		if m := more().FindString(raw); m != "" {
			raw, found = raw[len(m):], true
			lines[i] = raw
		}
		t := strings.TrimSpace(raw)
		if v, ok := CommandHeader(raw, i+1); ok && s.Excerpt.Line == 0 {
			s.Excerpt = v
			continue
		}
		m := prompt().FindStringSubmatchIndex(raw)
		if m == nil {
			if strings.HasPrefix(t, "% ") && !strings.HasPrefix(t, "% Warning") && len(cmds) > 0 && marksOnly(lines[cmds[len(cmds)-1].i+1:i]) {
				refused[cmds[len(cmds)-1].i] = true
			}
			if anyPrefix(printed, t) || strings.HasPrefix(t, "% ") {
				lines[i] = ""
			}
			continue
		}
		found = true
		cmd := strings.TrimLeft(raw[m[1]:], " \t")
		start := len(raw) - len(cmd)
		if m[4] < 0 || isExec(cmd) {
			// Exec mode, or an exec command run from a configuration
			// mode (`do show running-config`): not configuration.
			c := strings.TrimPrefix(cmd, "do ")
			lines[i] = ""
			if s.Excerpt.Line == 0 && Excerpt(c) {
				// Kept as a comment, for a note to quote.
				s.Excerpt = Value{Text: strings.TrimSpace(c), Line: i + 1, Col: start + 1 + len(cmd) - len(c)}
				lines[i], s.Shift[i] = "!"+raw, -1
			}
			continue
		}
		lines[i] = cmd
		s.Shift[i] = start
		cmds = append(cmds, typed{i, raw[m[4]:m[5]]})
	}
	if !found {
		return typedScript(strings.Split(string(data), "\n"))
	}
	// NX-OS's configuration session is `config-s`, its modes below it
	// `config-s-if`, `config-s-acl`; EOS names a session's global mode
	// `config-s-` and the session's name cut to 6 characters, and its
	// modes below that `config-s-sess-1-if-Et1`.
	nxSession := slices.ContainsFunc(cmds, func(c typed) bool { return c.mode == "config-s" })
	isRoot := func(m string) bool {
		name, ok := strings.CutPrefix(m, "config-s-")
		return m == "config" || m == "conf" || nxSession && m == "config-s" || !nxSession && ok && len(name) <= 6
	}
	// Each typed command goes at the depth of the mode it was typed in:
	// a mode's depth is one below the command that opened it, which the
	// next prompt shows; a command like the one that opened its mode (a
	// second `interface`, `class` or `tx-queue`) opens a sibling instead.
	stack := []string{"config"}
	// openers are the commands that opened a mode, at their depth: one
	// like them typed in that mode (a sibling) or deeper (the CLI leaves
	// for that mode) goes there.
	type opener struct {
		cmd   string
		depth int
	}
	var openers []opener
	for n, c := range cmds {
		d := -1
		for k := len(stack) - 1; k >= 0; k-- {
			if stack[k] == c.mode || k == 0 && isRoot(c.mode) {
				d = k
				break
			}
		}
		if d < 0 {
			// The paste starts inside a block whose opening it left out.
			stack = append(stack, c.mode)
			d = len(stack) - 1
		}
		cmd := lines[c.i]
		if topLevel(cmd) {
			d = 0
		}
		for _, o := range openers {
			if o.depth < d && opens(o.cmd, cmd) {
				d = o.depth
			}
		}
		stack = stack[:d+1]
		word := strings.Fields(cmd)
		if len(word) == 0 || word[0] == "exit" || word[0] == "end" || refused[c.i] || strings.HasPrefix(c.mode, "config-s") && (word[0] == "commit" || word[0] == "abort") {
			lines[c.i] = ""
			continue
		}
		indent := strings.Repeat("  ", d)
		lines[c.i] = indent + cmd
		s.Shift[c.i] -= len(indent)
		if n+1 < len(cmds) && !isRoot(cmds[n+1].mode) && !slices.Contains(stack, cmds[n+1].mode) {
			stack = append(stack, cmds[n+1].mode)
			openers = append(openers, opener{cmd, d})
		}
	}
	s.Text = []byte(strings.Join(lines, "\n"))
	return s, true
}

// typedScript reads a script of commands typed without prompts, as
// automation pushes them (`conf`, then `interface Ethernet1/1-32` with
// its commands at the left margin, `end`): the commands after an
// `interface` line of its own are that interface's, up to a blank line,
// `exit`, `end` or another top-level command, and are indented as the
// running-config prints them; `conf`, `configure terminal`, `exit` and
// `end` at the left margin are blanked. A printed configuration indents
// an interface's commands, so it has none and is not a script (false).
func typedScript(lines []string) (Session, bool) {
	s := Session{Shift: make([]int, len(lines))}
	open, typed := false, false
	for i, raw := range lines {
		t := strings.TrimSpace(raw)
		w := strings.Fields(t)
		switch {
		case t == "" || raw[0] == ' ' || raw[0] == '\t':
			open = false
		case topLevel(t):
			open = abbrev(w[0], "interface", 3) && len(w) <= 3
		case w[0] == "exit" || w[0] == "end" || w[0] == "!":
			open = false
		case open:
			lines[i], s.Shift[i], typed = "  "+raw, -2, true
		}
	}
	if !typed {
		return Session{}, false
	}
	for i, raw := range lines {
		if w := strings.Fields(raw); len(w) > 0 && raw[0] != ' ' && (w[0] == "exit" || w[0] == "end" || abbrev(w[0], "configure", 4) && (len(w) == 1 || abbrev(w[1], "terminal", 1))) {
			lines[i] = ""
		}
	}
	s.Text = []byte(strings.Join(lines, "\n"))
	return s, true
}

// isExec reports whether a command typed at a configuration prompt runs
// as an exec command: `do …`, or `show …` (NX-OS and EOS run it there).
func isExec(cmd string) bool {
	w := strings.Fields(cmd)
	return len(w) > 0 && (w[0] == "do" || abbrev(w[0], "show", 2))
}

// topLevel reports whether a command belongs to the top of the
// configuration wherever it is typed, as every one of these CLIs writes
// it: a block's head (`interface`, abbreviated to three letters,
// `policy-map`, `class-map`, `system qos`) or a global command (global).
func topLevel(cmd string) bool {
	w := strings.Fields(cmd)
	return len(w) > 1 && (abbrev(w[0], "interface", 3) || w[0] == "policy-map" || w[0] == "class-map" || w[0] == "system" && w[1] == "qos" || global(w))
}

// globals are the first words of commands that only the global
// configuration mode takes, in none of these CLIs an interface's: typed
// in an interface's mode, the CLI leaves the interface for them. NX-OS:
// `feature`, `hardware access-list`, `vrf context`; EOS: its `qos map`,
// `qos profile`, `qos rewrite`, `qos random-detect` and `platform`
// (buffers), `priority-flow-control all`, `vrf instance`; AOS-CX: its
// `qos` profiles and maps; OS10: `wred` profiles; and every CLI's
// `hostname`, `router`, `ip`/`ipv6 access-list`, `ip route`.
var globals = [][]string{
	{"feature"}, {"hardware", "access-list"}, {"vrf", "context"}, {"vrf", "instance"},
	{"qos", "map"}, {"qos", "profile"}, {"qos", "rewrite"}, {"qos", "random-detect"}, {"platform"},
	{"priority-flow-control", "all"},
	{"qos", "queue-profile"}, {"qos", "schedule-profile"}, {"qos", "threshold-profile"}, {"qos", "dscp-map"}, {"qos", "cos-map"},
	{"wred"}, {"hostname"}, {"router"}, {"ip", "access-list"}, {"ipv6", "access-list"}, {"ip", "route"},
}

// global reports whether the words w are a global command (globals), or
// `vlan N` (an interface's `vlan access N` is its own).
func global(w []string) bool {
	if len(w) > 1 && w[0] == "vlan" && w[1] != "" && w[1][0] >= '0' && w[1][0] <= '9' {
		return true
	}
	return slices.ContainsFunc(globals, func(g []string) bool {
		return len(w) > len(g) && slices.Equal(w[:len(g)], g)
	})
}

// opens reports whether cmd is a command like opener, which opened a
// mode: the same words but the last (`interface Ethernet2` after
// `interface Ethernet1`, `class type network-qos c-8q-nq-default` after
// `class type network-qos c-8q-nq3`).
func opens(opener, cmd string) bool {
	o, c := strings.Fields(opener), strings.Fields(cmd)
	if len(o) < 2 || len(c) < len(o) {
		return false
	}
	for i := range o[:len(o)-1] {
		if !strings.EqualFold(o[i], c[i]) {
			return false
		}
	}
	return true
}

// marksOnly reports whether the lines between a command and the CLI's
// answer are only the `^` marker under the word it refused.
func marksOnly(lines []string) bool {
	for _, l := range lines {
		if strings.Trim(l, "^ \t\r") != "" {
			return false
		}
	}
	return true
}

// Excerpt reports whether cmd is a `show running-config` (or
// running-configuration, startup-config; abbreviated as the CLI takes
// them, `sh run int e1/1`) that prints a part of the configuration: an
// interface, a section, a filter; `all` and `| no-more` print it whole.
func Excerpt(cmd string) bool {
	w := strings.Fields(cmd)
	if len(w) < 2 || !abbrev(w[0], "show", 2) || !abbrev(w[1], "running-config", 3) && !abbrev(w[1], "running-configuration", 3) && !abbrev(w[1], "startup-config", 3) {
		return false
	}
	for i := 2; i < len(w); i++ {
		switch {
		case strings.EqualFold(w[i], "all"):
		case w[i] == "|" && i+1 < len(w) && (w[i+1] == "no-more" || w[i+1] == "nomore"):
			i++
		default:
			return true
		}
	}
	return false
}

// CommandHeader reads raw, line n of its file, as the `!Command: show
// running-config …` header NX-OS prints above what the command printed,
// when the command prints a part of the configuration (Excerpt): the
// command, where it is.
func CommandHeader(raw string, n int) (Value, bool) {
	cmd, ok := strings.CutPrefix(strings.TrimSpace(raw), "!Command: ")
	if cmd = strings.TrimSpace(cmd); !ok || !Excerpt(cmd) {
		return Value{}, false
	}
	return Value{Text: cmd, Line: n, Col: strings.Index(raw, cmd) + 1}, true
}

// abbrev reports whether w is word or an abbreviation of it at least n
// letters long, as the CLI accepts them (`sh run`).
func abbrev(w, word string, n int) bool {
	return len(w) >= n && strings.HasPrefix(word, strings.ToLower(w))
}

// anyPrefix reports whether t starts with one of the prefixes.
func anyPrefix(prefixes []string, t string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(t, p) })
}

// Place moves a reader's error on the session's text to the place in the
// paste where the command was typed.
func (s Session) Place(err error) error {
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.Line < 1 || pe.Line > len(s.Shift) || pe.Col < 1 {
		return err
	}
	moved := *pe
	moved.Col += s.Shift[pe.Line-1]
	return &moved
}
