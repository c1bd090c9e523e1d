package ingest

import (
	"cmp"
	"strings"
)

// KindModules is `lsmod` (and `cat /proc/modules`): the kernel modules
// loaded on a host.
const KindModules Kind = "kernel-modules"

// Modules holds the listings of loaded kernel modules an input prints:
// lsmod's rows under its header "Module  Size  Used by",
//
//	nvidia_peermem         12288  0
//	ib_core               491520  9 rdma_cm,ib_ipoib,nvidia_peermem,...
//
// /proc/modules' ("nvidia_peermem 16384 0 - Live 0x0000000000000000
// (OE)"), and, most often pasted, what `lsmod | grep PATTERN` printed
// under its command, which may be nothing: a grep that printed no row
// before the next prompt says that no module it would match is loaded.
type Modules struct {
	Scoped
	artifactHead
	// Listings are the listings in input order.
	Listings []ModuleListing
}

// A ModuleListing is one lsmod run (or one /proc/modules read) and the
// rows it printed.
type ModuleListing struct {
	Host string // pdsh prefix or prompt, else ""
	// Filter is the grep the command piped lsmod into (its pattern and
	// flags), nil for a listing of every module.
	Filter   *ModuleFilter
	Modules  []LoadedModule
	Evidence Evidence // the command line, else the header or first row
}

// A ModuleFilter is `grep [-E] [-i] [-w] PATTERN`, read as alternatives
// of plain text; Unread is set when the pattern has other regular
// expression syntax, or grep inverts (-v) or matches whole lines (-x),
// which are not judged.
type ModuleFilter struct {
	Alternatives []string
	Fold         bool // -i
	Word         bool // -w: an alternative matches a whole word only
	Unread       bool
}

// A LoadedModule is one row: a module and the modules that use it.
type LoadedModule struct {
	Name     string
	Users    []string
	Evidence Evidence
}

// Shows reports whether the listing would show a module of this name if
// it were loaded.
func (m ModuleListing) Shows(name string) bool {
	if m.Filter == nil {
		return true
	}
	if m.Filter.Unread {
		return false
	}
	for _, a := range m.Filter.Alternatives {
		n := name
		if m.Filter.Fold {
			n, a = strings.ToLower(n), strings.ToLower(a)
		}
		if m.Filter.Word && n == a || !m.Filter.Word && strings.Contains(n, a) {
			// a module name is one word to grep -w ('_' is a word
			// character; '-' is not printed in lsmod's names)
			return true
		}
	}
	return false
}

// Kind returns KindModules.
func (m *Modules) Kind() Kind { return KindModules }

// Bounds that keep memory bounded however large the input is.
const (
	maxModuleListings = 1024
	maxListedModules  = 4096
)

type modulesParser struct {
	out    Modules
	states originStates[modulesState]
}

// modulesState is what one origin's lines have opened.
type modulesState struct {
	open    *ModuleListing // the listing whose rows are being read
	command bool           // open was opened by a command and has no row yet
}

// NewModulesParser returns a parser for lsmod output in the input src.
func NewModulesParser(src string) Parser {
	return &modulesParser{out: Modules{artifactHead: artifactHead{src: src}}, states: newOriginStates(func() *modulesState { return &modulesState{} })}
}

// Feed implements Parser.
func (p *modulesParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	st := p.states.get(l.Origin)
	if st == nil {
		return
	}
	t := strings.TrimSpace(l.Text)
	if c, ok := findCommand(t, "lsmod"); ok && len(c.Args) == 0 && atCommand(t, "lsmod") {
		p.close(st, true)
		st.open = &ModuleListing{Host: strings.Clone(cmp.Or(l.Origin, c.Host, l.Host)), Filter: grepFilter(t), Evidence: At(p.out.src, l)}
		st.command = true
		p.out.lines.add(l)
		return
	}
	if f := strings.Fields(t); len(f) == 4 && f[0] == "Module" && f[1] == "Size" && f[2] == "Used" && f[3] == "by" {
		if st.open == nil || !st.command || st.open.Filter != nil {
			p.close(st, false)
			st.open = &ModuleListing{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Evidence: At(p.out.src, l)}
		}
		st.command = false
		p.out.lines.add(l)
		return
	}
	if m, ok := moduleRow(t, st.open != nil); ok {
		if st.open == nil {
			st.open = &ModuleListing{Host: strings.Clone(cmp.Or(l.Origin, l.Host)), Evidence: At(p.out.src, l)}
		}
		st.command = false
		if len(st.open.Modules) < maxListedModules {
			m.Evidence = At(p.out.src, l)
			st.open.Modules = append(st.open.Modules, m)
		}
		p.out.lines.add(l)
		return
	}
	if st.open != nil && (t != "" || !st.command) {
		// a grep that printed nothing says so only when the next prompt
		// follows it
		p.close(st, st.command && promptLine(t))
	}
}

// close ends the listing st is reading: one with rows is kept, one that
// printed none only when empty says its command's silence was seen.
func (p *modulesParser) close(st *modulesState, empty bool) {
	if st.open != nil && (len(st.open.Modules) > 0 || empty && st.open.Filter != nil) && len(p.out.Listings) < maxModuleListings {
		p.out.Listings = append(p.out.Listings, *st.open)
	}
	st.open, st.command = nil, false
}

// moduleRow reads an lsmod row, "name size count [users]", when a
// listing is open, or a /proc/modules row ("... Live 0x...") anywhere.
func moduleRow(t string, open bool) (LoadedModule, bool) {
	f := strings.Fields(t)
	procModules := len(f) >= 6 && (f[4] == "Live" || f[4] == "Loading" || f[4] == "Unloading") && strings.HasPrefix(f[5], "0x")
	if len(f) < 3 || !open && !procModules || !procModules && len(f) > 4 {
		return LoadedModule{}, false
	}
	if !isModuleName(f[0]) || !allDigits(f[1]) || !allDigits(f[2]) && f[2] != "-" {
		return LoadedModule{}, false
	}
	m := LoadedModule{Name: strings.Clone(f[0])}
	if len(f) > 3 && f[3] != "-" {
		for u := range strings.SplitSeq(strings.TrimSuffix(f[3], ","), ",") {
			if isModuleName(u) {
				m.Users = append(m.Users, strings.Clone(u))
			}
		}
	}
	return m, true
}

func isModuleName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// grepFilter reads the grep an lsmod command line pipes into, nil for
// none.
func grepFilter(t string) *ModuleFilter {
	_, pipe, ok := strings.Cut(t, "|")
	if !ok {
		return nil
	}
	args := shellWords(pipe)
	if len(args) == 0 || args[0] != "grep" && args[0] != "egrep" {
		// another filter (head, less): not read as a grep
		return &ModuleFilter{Unread: true}
	}
	f := &ModuleFilter{}
	extended := args[0] == "egrep"
	var pattern []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" && i+1 < len(args):
			i++
			pattern = append(pattern, args[i])
		case strings.HasPrefix(a, "--"):
			long, _, _ := strings.Cut(a[2:], "=")
			extended = extended || long == "extended-regexp"
			f.Fold = f.Fold || long == "ignore-case"
			f.Word = f.Word || long == "word-regexp"
			f.Unread = f.Unread || long == "invert-match" || long == "line-regexp"
		case strings.HasPrefix(a, "-") && len(a) > 1:
			extended = extended || strings.ContainsRune(a[1:], 'E')
			f.Fold = f.Fold || strings.ContainsRune(a[1:], 'i')
			f.Word = f.Word || strings.ContainsRune(a[1:], 'w')
			f.Unread = f.Unread || strings.ContainsAny(a[1:], "vx")
		default:
			pattern = append(pattern, a)
		}
	}
	if len(pattern) == 0 {
		return &ModuleFilter{Unread: true}
	}
	sep := `\|`
	if extended {
		sep = "|"
	}
	for _, pat := range pattern {
		for alt := range strings.SplitSeq(pat, sep) {
			if !isModuleName(alt) {
				f.Unread = true
				continue
			}
			f.Alternatives = append(f.Alternatives, strings.Clone(alt))
		}
	}
	return f
}

// shellWords splits a command into its words, a quoted word whole,
// up to the first pipe outside quotes; Markdown's code marks are dropped.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	var quote rune
	in := false
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '|' || c == ';' || c == '>':
			if in {
				words = append(words, w.String())
			}
			return words
		case c == ' ' || c == '\t' || c == '`':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}

// atCommand reports whether tool is where a command begins: first on the
// line, after a prompt or after sudo, not quoted in prose.
func atCommand(t, tool string) bool {
	i := strings.Index(t, tool)
	if i < 0 {
		return false
	}
	pre := strings.TrimSpace(t[:i])
	pre = strings.TrimSpace(strings.TrimSuffix(pre, "sudo"))
	return pre == "" || strings.HasSuffix(pre, "#") || strings.HasSuffix(pre, "$") || strings.HasSuffix(pre, ">")
}

// promptLine reports whether t is a shell prompt, with or without a
// command after it: "[root@gpu3 ~]#", "(pytorch) [root@gpu3 ~]# ls",
// "user@h:~$", "#", "$".
func promptLine(t string) bool {
	if t == "#" || t == "$" || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "$ ") {
		return true
	}
	for _, mark := range []string{"]#", "]$", "~#", "~$"} {
		if i := strings.Index(t, mark); i >= 0 && (i+len(mark) == len(t) || t[i+len(mark)] == ' ') {
			return true
		}
	}
	return false
}

// Result implements Parser.
func (p *modulesParser) Result() Artifact {
	for _, st := range p.states.sorted() {
		p.close(st, false)
	}
	if len(p.out.Listings) == 0 {
		return nil
	}
	return &p.out
}
