package spec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/gitindex"
)

// This file holds the typed accessors over yaml.Node. Every accessor reports
// a positioned error and returns ok=false on a wrong type; an alias node has
// already been reported by the anchor check and fails silently, so one
// mistake gives one message.

// field is one key/value pair of a mapping.
type field struct {
	key, val *yaml.Node
}

// fields is a checked mapping: the known keys by name, in document order.
type fields struct {
	byName map[string]field
	order  []string
	// meant are the allowed keys that an unknown key of the mapping was
	// taken for (its did-you-mean): the key is there, misspelt.
	meant []string
	// unknown counts the mapping's unknown keys, each reported.
	unknown int
}

func (fs fields) get(name string) (field, bool) {
	f, ok := fs.byName[name]
	return f, ok
}

// misspelt reports whether an unknown key of the mapping was taken for one
// of keys. A required key that is missing because it is misspelt is one
// mistake, reported once, as the unknown key with its did-you-mean: the
// caller then says nothing of the key missing.
func (fs fields) misspelt(keys ...string) bool {
	for _, k := range keys {
		if slices.Contains(fs.meant, k) {
			return true
		}
	}
	return false
}

// describe names a node's type for messages ("a string", "a list", ...).
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return fmt.Sprintf("the string %s", quoteShort(n.Value))
		case "!!int", "!!float":
			return "the number " + short(n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		case "!!null":
			return "nothing (null)"
		default:
			return fmt.Sprintf("a %s value", n.ShortTag())
		}
	}
	return "an empty document"
}

// short cuts a user value for a message.
func short(s string) string {
	const maxLen = 60
	if len(s) <= maxLen {
		return s
	}
	cut := maxLen
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// quoteShort quotes a user value for a message, cut to a readable length.
func quoteShort(s string) string {
	return fmt.Sprintf("%q", short(s))
}

// quoteHint is appended to a "must be a string" message when the user wrote
// a plain scalar of another type.
func quoteHint(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		return ""
	}
	if n.ShortTag() == "!!null" {
		return `; write "" for an empty string`
	}
	if n.Style == 0 {
		return fmt.Sprintf("; quote it: %q", n.Value)
	}
	return ""
}

// mapping checks that n is a mapping without duplicate or unknown keys and
// returns its known fields. what names the mapping in messages
// ("profiles.python"), shape says what a valid value looks like.
func (l *loader) mapping(n *yaml.Node, what, shape string, allowed []string) (fields, bool) {
	fs := fields{byName: map[string]field{}}
	pairs, ok := l.entries(n, what, shape)
	if !ok {
		return fs, false
	}
	for _, p := range pairs {
		name := p.key.Value
		if !slices.Contains(allowed, name) {
			l.errorf(p.key, "unknown key %q in %s%s; allowed keys: %s", short(name), what, suggest(name, allowed), strings.Join(allowed, ", "))
			fs.unknown++
			if c := closest(name, allowed); c != "" {
				fs.meant = append(fs.meant, c)
			}
			continue
		}
		fs.byName[name] = p
		fs.order = append(fs.order, name)
	}
	return fs, true
}

// entries checks that n is a mapping whose keys are names the caller
// validates, rejecting duplicates, and returns the pairs in document order.
func (l *loader) entries(n *yaml.Node, what, shape string) ([]field, bool) {
	if n.Kind == yaml.AliasNode {
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be %s, got %s", what, shape, describe(n))
		return nil, false
	}
	var out []field
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			if k.Kind != yaml.AliasNode {
				l.errorf(k, "keys in %s must be plain names, got %s", what, describe(k))
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			l.errorf(k, "duplicate key %q in %s (first at line %d): keep one", short(k.Value), what, first.Line)
			continue
		}
		seen[k.Value] = k
		out = append(out, field{key: k, val: v})
	}
	return out, true
}

// str returns a string scalar.
func (l *loader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.AliasNode {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		l.errorf(n, "%s must be a string, got %s%s", what, describe(n), quoteHint(n))
		return "", false
	}
	return n.Value, true
}

// strLike returns a string scalar; like shows a valid value in the message.
func (l *loader) strLike(n *yaml.Node, what, like string) (string, bool) {
	if n.Kind == yaml.AliasNode {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		l.errorf(n, "%s must be a string like %s, got %s", what, like, describe(n))
		return "", false
	}
	return n.Value, true
}

// text returns a string scalar that holds no NUL byte (argv, environment
// and paths cannot carry one).
func (l *loader) text(n *yaml.Node, what string) (string, bool) {
	s, ok := l.str(n, what)
	if !ok {
		return "", false
	}
	if strings.IndexByte(s, 0) >= 0 {
		l.errorf(n, "%s must not contain a NUL byte (\\0)", what)
		return "", false
	}
	return s, true
}

// name returns a non-empty string without control characters.
func (l *loader) name(n *yaml.Node, what string) (string, bool) {
	s, ok := l.str(n, what)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(s) == "" {
		l.errorf(n, "%s must not be empty", what)
		return "", false
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		l.errorf(n, "%s %q must not contain control characters (newlines, tabs, escapes)", what, short(s))
		return "", false
	}
	return s, true
}

// integer returns an integer scalar.
func (l *loader) integer(n *yaml.Node, what string) (int64, bool) {
	if n.Kind == yaml.AliasNode {
		return 0, false
	}
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		l.errorf(n, "%s must be a whole number, got %s", what, describe(n))
		return 0, false
	}
	return v, true
}

// number returns a finite number scalar (integer or decimal).
func (l *loader) number(n *yaml.Node, what string) (float64, bool) {
	if n.Kind == yaml.AliasNode {
		return 0, false
	}
	var v float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&v) != nil ||
		math.IsNaN(v) || math.IsInf(v, 0) {
		l.errorf(n, "%s must be a finite number, got %s", what, describe(n))
		return 0, false
	}
	return v, true
}

// boolean returns a boolean scalar.
func (l *loader) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind == yaml.AliasNode {
		return false, false
	}
	var v bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		l.errorf(n, "%s must be true or false, got %s", what, describe(n))
		return false, false
	}
	return v, true
}

// stringList returns a list of strings without NUL bytes.
func (l *loader) stringList(n *yaml.Node, what, example string) ([]string, bool) {
	if n.Kind == yaml.AliasNode {
		return nil, false
	}
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s must be a list of strings like %s, got %s", what, example, describe(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	ok := true
	for i, item := range n.Content {
		s, good := l.text(item, fmt.Sprintf("%s[%d]", what, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// suggest returns ` (did you mean "x"?)` for the closest allowed key, or "".
func suggest(name string, allowed []string) string {
	best := closest(name, allowed)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// closest is the allowed name that name is a likely typo of, or "".
func closest(name string, allowed []string) string {
	best, bestD := "", 3
	lower := strings.ToLower(name)
	for _, a := range allowed {
		if len(lower) > 64 || len(a) > 64 {
			continue // no key is that long: not a typo of one
		}
		// The same distance as a mistyped path's (transpositions count 1).
		d := gitindex.Distance(lower, a, 2)
		if d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
