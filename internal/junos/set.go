package junos

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"rocelab/internal/pos"
)

// The set form is what `show configuration class-of-service | display
// set` prints and what Juniper's guides and automation type: one `set
// class-of-service …` path a line, optionally typed at a `user@switch#`
// prompt below an `[edit class-of-service]` banner that the path is
// relative to. parseSet rebuilds the braces form's statement tree from
// it, so the one reader (sonic.FromJunos) judges both.

// prompt is a Junos CLI prompt before a typed command; it and setShape
// are built at first use, not at every start of the binary.
var prompt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.-]+@[\w.-]+[#>] ?`) })

// setShape says, under a statement path (names as "*"), which keywords
// open a statement of their own and how many words that statement has;
// the rest of a path is one leaf statement. It follows the hierarchy of
// the class-of-service statements lint reads.
var setShape = sync.OnceValue(func() map[string]map[string]int {
	return map[string]map[string]int{
		"": {"class-of-service": 1},
		"class-of-service": {"classifiers": 1, "forwarding-classes": 1, "congestion-notification-profile": 1,
			"interfaces": 1, "scheduler-maps": 1, "schedulers": 1, "drop-profiles": 1, "rewrite-rules": 1},
		"class-of-service classifiers":                                {"*": 2},
		"class-of-service classifiers *":                              {"forwarding-class": 2},
		"class-of-service rewrite-rules":                              {"*": 2},
		"class-of-service rewrite-rules *":                            {"forwarding-class": 2},
		"class-of-service congestion-notification-profile":            {"*": 1},
		"class-of-service congestion-notification-profile *":          {"input": 1, "output": 1},
		"class-of-service congestion-notification-profile * input":    {"*": 1},
		"class-of-service congestion-notification-profile * input *":  {"code-point": 2},
		"class-of-service congestion-notification-profile * output":   {"*": 1},
		"class-of-service congestion-notification-profile * output *": {"code-point": 2},
		"class-of-service interfaces":                                 {"*": 1},
		"class-of-service interfaces *":                               {"unit": 2},
		"class-of-service interfaces * unit":                          {"classifiers": 1, "rewrite-rules": 1},
		"class-of-service scheduler-maps":                             {"*": 1},
		"class-of-service schedulers":                                 {"*": 1},
		"class-of-service drop-profiles":                              {"*": 1},
		"class-of-service drop-profiles *":                            {"interpolate": 1},
	}
})

// listKeys take a list (`code-points [ 011010 011000 ]`) that the set
// form prints one element a line.
var listKeys = []string{"code-points", "fill-level", "drop-probability"}

// isSet reports whether the text is the set form: a `set` or `[edit`
// line (after any prompt) leads it.
func isSet(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		line = prompt().ReplaceAllString(strings.TrimSpace(line), "")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "/*") || echo(line) {
			continue
		}
		return strings.HasPrefix(line, "set ") || strings.HasPrefix(line, "[edit")
	}
	return false
}

// echo reports whether line is the `show configuration` command (`|
// display set`, `| no-more`) echoed above its output, after a
// `user@host>` prompt or none.
func echo(line string) bool {
	return strings.HasPrefix(prompt().ReplaceAllString(strings.TrimSpace(line), ""), "show configuration")
}

// setWords splits a line into words with their places: quotes keep
// spaces, list brackets are dropped.
func setWords(line string, ln, from int) ([]Value, error) {
	var out []Value
	for i := from; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '[' || c == ']':
			i++
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				return nil, &pos.Error{Line: ln, Col: i + 1, Msg: "unterminated '\"'"}
			}
			out = append(out, Value{Text: line[i+1 : i+1+end], Line: ln, Col: i + 1})
			i += end + 2
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t[]\"", rune(line[j])) {
				j++
			}
			out = append(out, Value{Text: line[i:j], Line: ln, Col: i + 1})
			i = j
		}
	}
	return out, nil
}

// parseSet reads the set form into the statement tree Parse gives for
// the braces form (a firewall line as one statement, for the filters
// that set a forwarding class). A session's `edit`, `up`, `exit` and
// `top` move the level its commands are relative to, and the `[edit …]`
// banner it echoes names that level; lines outside class-of-service and
// firewall, comments, and the session's other commands (configure,
// commit, show) are skipped; a `delete` or `deactivate` would change what the lines before
// it set, and is refused at its place.
func parseSet(name string, data []byte) (*Node, error) {
	root := &Node{}
	var edit []Value
	for li, raw := range strings.Split(string(data), "\n") {
		raw = strings.TrimRight(raw, "\r")
		if echo(raw) {
			continue
		}
		from := len(raw) - len(strings.TrimLeft(raw, " \t"))
		if m := prompt().FindStringIndex(raw[from:]); m != nil {
			from += m[1]
		}
		words, err := setWords(raw, li+1, from)
		if err != nil {
			err.(*pos.Error).File = name
			return nil, err
		}
		if len(words) == 0 || strings.HasPrefix(words[0].Text, "#") || strings.HasPrefix(words[0].Text, "/*") {
			continue
		}
		if raw[from] == '[' && words[0].Text == "edit" {
			// The banner `[edit class-of-service]` (setWords drops its
			// brackets) names the level from the top.
			edit = slices.Clone(words[1:])
			continue
		}
		switch words[0].Text {
		case "edit":
			edit = append(edit, words[1:]...)
		case "up", "exit":
			edit = edit[:max(len(edit)-1, 0)]
		case "top":
			edit = nil
		case "set":
			path := append(slices.Clone(edit), words[1:]...)
			if len(path) > 1 && (path[0].Text == "class-of-service" || path[0].Text == "firewall") {
				root.insert("", path)
			}
		case "delete", "deactivate", "insert", "rename", "replace", "activate":
			return nil, &pos.Error{File: name, Line: words[0].Line, Col: words[0].Col,
				Msg: "`" + words[0].Text + "` changes what the lines before it set: give the configuration as `show configuration class-of-service | display set` prints it"}
		}
	}
	return root, nil
}

// insert adds a set path under n, whose statement path is shape.
func (n *Node) insert(shape string, path []Value) {
	keys := setShape()[shape]
	size, ok := keys[path[0].Text]
	seg := path[0].Text
	if !ok {
		size, ok = keys["*"]
		seg = "*"
	}
	if !ok || size >= len(path) {
		n.addLeaf(path)
		return
	}
	var child *Node
	for _, c := range n.Children {
		if len(c.Children) > 0 && sameWords(c.Words, path[:size]) {
			child = c
			break
		}
	}
	if child == nil {
		child = &Node{Words: slices.Clone(path[:size])}
		n.Children = append(n.Children, child)
	}
	child.insert(strings.TrimSpace(shape+" "+seg), path[size:])
}

// addLeaf adds a leaf statement, folding the set form's one-a-line
// pieces back into the statement the braces form prints: a forwarding
// class's attributes (`class C queue-num 3`, `class C no-loss`) and a
// list's elements (`code-points 011010`, `code-points 011000`).
func (n *Node) addLeaf(w []Value) {
	for _, c := range n.Children {
		switch {
		case len(c.Children) > 0:
		case sameWords(c.Words, w):
			return
		case len(w) > 2 && w[0].Text == "class" && len(c.Words) > 1 && sameWords(c.Words[:2], w[:2]):
			c.Words = append(c.Words, w[2:]...)
			return
		case len(w) > 1 && slices.Contains(listKeys, w[len(w)-2].Text) && len(c.Words) >= len(w) && sameWords(c.Words[:len(w)-1], w[:len(w)-1]):
			c.Words = append(c.Words, w[len(w)-1])
			return
		}
	}
	n.Children = append(n.Children, &Node{Words: slices.Clone(w)})
}

func sameWords(a, b []Value) bool {
	return slices.EqualFunc(a, b, func(x, y Value) bool { return x.Text == y.Text })
}
