package ingest

import (
	"strings"
)

// A shellCommand is a command line an engineer pasted above a tool's output,
// e.g. "[root@cn3 ~]# ethtool -S eth0" or "$ mlnx_qos -i mce0".
type shellCommand struct {
	Host string   // from a "[user@host dir]#" or "user@host:dir$" prompt, else ""
	Args []string // the tool's arguments, without the tool's own name
}

// findCommand looks for tool as a word in the line and returns its
// arguments (up to a pipe) and the prompt's host name. Markdown emphasis and
// code marks around words are ignored.
func findCommand(text, tool string) (shellCommand, bool) {
	i := strings.Index(text, tool)
	for i >= 0 {
		end := i + len(tool)
		before := i == 0 || isCmdBoundary(text[i-1])
		after := end == len(text) || text[end] == ' ' || text[end] == '\t' || text[end] == '`' || text[end] == '_' && end+1 == len(text)
		if before && after {
			break
		}
		j := strings.Index(text[end:], tool)
		if j < 0 {
			return shellCommand{}, false
		}
		i = end + j
	}
	if i < 0 {
		return shellCommand{}, false
	}
	rest := text[i+len(tool):]
	if p := strings.IndexAny(rest, "|>;"); p >= 0 {
		rest = rest[:p]
		if text[i+len(tool)+p] == '>' {
			rest = dropRedirectFD(rest)
		}
	}
	var args []string
	for _, f := range strings.Fields(rest) {
		f = strings.Trim(f, "`*_\"'")
		if f != "" {
			args = append(args, f)
		}
	}
	return shellCommand{Host: promptHost(text[:i]), Args: args}, true
}

// dropRedirectFD drops the file descriptor of a redirection cut off at its
// '>' ("2" of "peer 2>&1"): a word of digits right before it is no argument.
func dropRedirectFD(rest string) string {
	w := strings.TrimRight(rest, "0123456789")
	if len(w) < len(rest) && (w == "" || w[len(w)-1] == ' ' || w[len(w)-1] == '\t') {
		return w
	}
	return rest
}

func isCmdBoundary(c byte) bool {
	return c == ' ' || c == '\t' || c == '`' || c == '_' || c == '#' || c == '$' || c == '/' || c == '*' || c == '(' || c == '>'
}

// promptHost extracts the host from a shell prompt: "[root@cn3 ~]#",
// "root@node1:~#", "user@gpu-01:/tmp$".
func promptHost(p string) string {
	at := strings.LastIndexByte(p, '@')
	if at < 0 {
		return ""
	}
	rest := p[at+1:]
	end := strings.IndexAny(rest, " :]")
	if end <= 0 {
		return ""
	}
	h := rest[:end]
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return ""
		}
	}
	return h
}

// flagValue returns the argument after any of the named flags, accepting
// "-d mlx5_0", "-dmlx5_0" for one-letter flags, and "--ib-dev=mlx5_0".
func (c shellCommand) flagValue(names ...string) (string, bool) {
	for k, a := range c.Args {
		for _, n := range names {
			switch {
			case a == n && k+1 < len(c.Args):
				return c.Args[k+1], true
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				return a[len(n)+1:], true
			case len(n) == 2 && n[0] == '-' && n[1] != '-' && len(a) > 2 && strings.HasPrefix(a, n) && a[1] != '-':
				return a[2:], true
			}
		}
	}
	return "", false
}

// hasFlag reports whether any of the named flags is present.
func (c shellCommand) hasFlag(names ...string) bool {
	for _, a := range c.Args {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// isIdentName reports whether s can be an interface, device or host name:
// a letter or digit first, then letters, digits and "_.:@-", at most 64
// bytes.
func isIdentName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if i > 0 {
			ok = ok || c == '_' || c == '.' || c == ':' || c == '@' || c == '-'
		}
		if !ok {
			return false
		}
	}
	return true
}

// literalArg reports whether a command's argument names a thing as typed,
// not a shell variable or substitution ($DEV, `cmd`) or a placeholder a
// document left in (<device>): only a literal names a port or device.
func literalArg(s string) bool { return !strings.ContainsAny(s, "$`<>") }
