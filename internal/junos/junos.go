// Package junos reads the class-of-service a Juniper Junos configuration
// (QFX, `show configuration class-of-service` or the whole hierarchy, with
// or without the enclosing `class-of-service { }`) sets for RoCE: the
// forwarding classes (queue, no-loss, pfc-priority), the DSCP classifiers,
// the congestion-notification profiles that pause on a DSCP, the
// schedulers that mark ECN, and the interfaces that bind them. Every value
// keeps its line and column; sonic.FromJunos writes it as CONFIG_DB rows.
package junos

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/pos"
	"rocelab/internal/swcfg"
)

// Value is a setting with where it is written.
type Value = swcfg.Value

// A Node is one statement: its words (`class NO-LOSS queue-num 4
// no-loss pfc-priority 3`) and the statements in its braces.
type Node struct {
	Words    []Value
	Children []*Node
}

// Text is the statement's words joined.
func (n *Node) Text() string {
	out := make([]string, len(n.Words))
	for i, w := range n.Words {
		out[i] = w.Text
	}
	return strings.Join(out, " ")
}

// Find returns the statements under n (at any depth) whose first word is
// name, in order.
func (n *Node) Find(name string) []*Node {
	var out []*Node
	for _, c := range n.Children {
		if len(c.Words) > 0 && c.Words[0].Text == name {
			out = append(out, c)
		}
		out = append(out, c.Find(name)...)
	}
	return out
}

// Word returns the word after key in the statement, if any.
func (n *Node) Word(key string) (Value, bool) {
	for i, w := range n.Words {
		if w.Text == key && i+1 < len(n.Words) {
			return n.Words[i+1], true
		}
	}
	return Value{}, false
}

// Has reports whether the statement has the word.
func (n *Node) Has(word string) (Value, bool) {
	for _, w := range n.Words {
		if w.Text == word {
			return w, true
		}
	}
	return Value{}, false
}

// IsConfig reports whether text looks like a Junos class-of-service
// configuration: braces and a `forwarding-classes` or `classifiers`
// statement, or the set form (`set class-of-service …` lines, or `set`
// lines below an `[edit class-of-service]` banner) setting one of them or
// a congestion-notification-profile; or a whole configuration as `show
// configuration` prints it, with or without class-of-service (Whole).
func IsConfig(data []byte) bool {
	s := string(data)
	if Whole(data) {
		return true
	}
	if isSet(s) {
		return strings.Contains(s, "class-of-service") && (strings.Contains(s, "forwarding-classes ") ||
			strings.Contains(s, "classifiers ") || strings.Contains(s, "congestion-notification-profile "))
	}
	return strings.Contains(s, "{") && (strings.Contains(s, "forwarding-classes {") || strings.Contains(s, "classifiers {")) &&
		(strings.Contains(s, "code-points") || strings.Contains(s, "queue-num"))
}

// Whole reports whether text is a whole Junos configuration: its first
// statement (after `## Last commit` comments and the echoed `show
// configuration` command) is the `version 23.4R2;`
// line `show configuration` begins with (`set version …` in the set
// form), and a top-level `system` or `interfaces` hierarchy follows. One
// without class-of-service runs no PFC and marks nothing.
func Whole(data []byte) bool {
	first, top := "", false
	for line := range strings.SplitSeq(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || first == "" && echo(t) {
			continue
		}
		if first == "" {
			first = t
			continue
		}
		if line[0] != ' ' && line[0] != '\t' && (strings.HasPrefix(t, "system {") || strings.HasPrefix(t, "interfaces {") ||
			strings.HasPrefix(t, "set system ") || strings.HasPrefix(t, "set interfaces ")) {
			top = true
			break
		}
	}
	braces := strings.HasPrefix(first, "version ") && strings.HasSuffix(first, ";")
	set := strings.HasPrefix(first, "set version ")
	return top && (braces || set)
}

// Parse reads a Junos configuration into its statement tree: the
// curly-brace form, where unbalanced braces or brackets are an error at
// their place, or the set form (parseSet), into the same tree.
func Parse(name string, data []byte) (*Node, error) {
	if isSet(string(data)) {
		return parseSet(name, data)
	}
	root := &Node{}
	stack := []*Node{root}
	braces := []Value{{}} // where each open block's '{' is
	cur := &Node{}
	inList, inComment := false, false
	errAt := func(v Value, msg string) error {
		return &pos.Error{File: name, Line: v.Line, Col: v.Col, Msg: msg}
	}
	for li, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if !inComment && echo(line) {
			continue
		}
		for i := 0; i < len(line); {
			c := line[i]
			at := Value{Line: li + 1, Col: i + 1}
			switch {
			case inComment:
				end := strings.Index(line[i:], "*/")
				if end < 0 {
					i = len(line)
				} else {
					inComment, i = false, i+end+2
				}
			case c == ' ' || c == '\t':
				i++
			case c == '#' && len(cur.Words) == 0:
				i = len(line) // a comment line
			case c == '/' && i+1 < len(line) && line[i+1] == '*':
				inComment, i = true, i+2 // an annotation, to its */
			case c == '[':
				inList, i = true, i+1
			case c == ']':
				if !inList {
					return nil, errAt(at, "']' without '['")
				}
				inList, i = false, i+1
			case c == '{' && !inList:
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, cur)
				stack, braces = append(stack, cur), append(braces, at)
				cur, i = &Node{}, i+1
			case c == '}' && !inList:
				if len(stack) == 1 {
					return nil, errAt(at, "'}' without '{'")
				}
				if len(cur.Words) > 0 {
					return nil, errAt(at, "';' expected before '}'")
				}
				stack, braces, i = stack[:len(stack)-1], braces[:len(braces)-1], i+1
			case c == ';' && !inList:
				parent := stack[len(stack)-1]
				parent.Children = append(parent.Children, cur)
				cur, i = &Node{}, i+1
			case c == '"':
				end := strings.IndexByte(line[i+1:], '"')
				if end < 0 {
					return nil, errAt(at, "unterminated '\"'")
				}
				at.Text = line[i+1 : i+1+end]
				cur.Words = append(cur.Words, at)
				i += end + 2
			default:
				j := i
				for j < len(line) && !strings.ContainsRune(" \t{};[]\"", rune(line[j])) {
					j++
				}
				if j == i {
					j++ // a brace or ';' inside [ ]: a word of its own
				}
				at.Text = line[i:j]
				cur.Words = append(cur.Words, at)
				i = j
			}
		}
	}
	if len(stack) > 1 {
		open := stack[len(stack)-1]
		at := braces[len(braces)-1]
		if len(open.Words) > 0 {
			at = open.Words[0]
		}
		return nil, errAt(at, fmt.Sprintf("%q: '{' not closed", open.Text()))
	}
	return root, nil
}

// DSCP reads a Junos DSCP code point: six bits ("011010"), or a number
// or PHB alias as swcfg.DSCPName reads them.
func DSCP(s string) (int, bool) {
	if len(s) == 6 && strings.Trim(s, "01") == "" {
		n, err := strconv.ParseInt(s, 2, 8)
		return int(n), err == nil
	}
	return swcfg.DSCPName(s)
}
