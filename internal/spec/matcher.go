package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// matcherKinds are the keys that say how a matcher compares, one each.
var matcherKinds = []verdict.Kind{verdict.Equals, verdict.Contains, verdict.Regex, verdict.JSON, verdict.Numbers, verdict.Checker}

// matcher parses one stream's matcher, or a list of them (all must hold).
func (l *loader) matcher(what, stream string, n *yaml.Node) *verdict.Matcher {
	if n.Kind != yaml.SequenceNode {
		return l.oneMatcher(what, stream, n)
	}
	if len(n.Content) == 0 {
		l.errorf(n, "%s is an empty list: give one matcher, or a list of matchers that must all hold", stream)
		return nil
	}
	all := &verdict.Matcher{Kind: verdict.All}
	checker := -1
	for i, item := range n.Content {
		if item.Kind == yaml.SequenceNode {
			l.errorf(item, "%s[%d] is a list inside the list: a stream takes one list of matchers", stream, i)
			continue
		}
		if m := l.oneMatcher(fmt.Sprintf("%s[%d]", what, i), stream, item); m != nil {
			if m.Kind == verdict.Checker {
				if checker >= 0 {
					l.errorf(item, "%s[%d] is a second checker on %s (the first is %s[%d]): a stream has at most one checker", stream, i, stream, stream, checker)
				}
				checker = i
			}
			all.All = append(all.All, *m)
		}
	}
	return all
}

// oneMatcher parses one matcher mapping.
func (l *loader) oneMatcher(what, stream string, n *yaml.Node) *verdict.Matcher {
	fs, ok := l.mapping(n, what, `a mapping with one of equals, contains, regex, json, numbers or checker, like {equals: "..."}, or a list of them`, matcherKeys)
	if !ok {
		return nil
	}
	m := &verdict.Matcher{Normalize: verdict.NormalizeTrailing}
	var kindNode *yaml.Node
	for _, name := range fs.order {
		kind := verdict.Kind(name)
		if !containsKind(matcherKinds, kind) {
			continue
		}
		f, _ := fs.get(name)
		if kindNode != nil {
			l.errorf(f.key, "%s has both %s and %s: use exactly one of equals, contains, regex, json, numbers or checker (a list of matchers checks several)", stream, m.Kind, kind)
			continue
		}
		kindNode = f.val
		m.Kind = kind
		switch kind {
		case verdict.JSON:
			m.Value, _ = l.jsonValue(f.val, fs)
		case verdict.Numbers:
			m.Value, _ = l.numbersValue(f.val)
		case verdict.Checker:
			if name, ok := l.name(f.val, "checker"); ok {
				m.Checker = name
				l.checkerUses = append(l.checkerUses, checkerUse{name: name, pos: l.pos(f.val)})
			}
		default:
			m.Value, _ = l.str(f.val, name)
		}
	}
	if kindNode == nil {
		// An unknown key in a matcher is taken for its kind, misspelt or
		// named otherwise (regexp, pattern): its error lists the kinds
		// already, so that one mistake is one error.
		if fs.unknown == 0 {
			l.errorf(n, "%s needs one of equals, contains, regex, json, numbers or checker", stream)
		}
		return m
	}
	l.answer(stream, fs, m)
	structured := m.Kind == verdict.JSON || m.Kind == verdict.Numbers
	if f, ok := fs.get("ignore_case"); ok {
		m.IgnoreCase, _ = l.boolean(f.val, "ignore_case")
		if structured || m.Kind == verdict.Checker {
			l.errorf(f.key, "ignore_case applies to equals, contains and regex, not %s", m.Kind)
		}
	}
	if f, ok := fs.get("normalize"); ok {
		switch {
		case structured:
			l.errorf(f.key, "normalize applies to equals, contains and regex, not %s (%s compares values, whitespace aside)", m.Kind, m.Kind)
		case m.Kind == verdict.Checker:
			l.errorf(f.key, "normalize applies to equals, contains and regex, not checker (the checker reads the output as it was written)")
		default:
			if s, ok := l.str(f.val, "normalize"); ok {
				switch verdict.Normalize(s) {
				case verdict.NormalizeTrailing, verdict.NormalizeExact, verdict.NormalizeWhitespace:
					m.Normalize = verdict.Normalize(s)
				default:
					l.errorf(f.val, "normalize %q is not one of trailing (the default), exact or whitespace", short(s))
				}
			}
		}
	}
	for _, o := range []struct {
		key   string
		field *bool
		kinds []verdict.Kind
		use   string
	}{
		{"unordered", &m.Unordered, []verdict.Kind{verdict.Equals, verdict.JSON}, "compares lines (equals) or arrays (json) in any order"},
		{"lines", &m.Lines, []verdict.Kind{verdict.JSON}, "compares one JSON document a line"},
		{"subset", &m.Subset, []verdict.Kind{verdict.JSON}, "lets objects hold members the expectation does not name"},
	} {
		if f, ok := fs.get(o.key); ok {
			*o.field, _ = l.boolean(f.val, o.key)
			if !containsKind(o.kinds, m.Kind) {
				l.errorf(f.key, "%s applies to %s, not %s (it %s)", o.key, kindList(o.kinds), m.Kind, o.use)
			}
		}
	}
	for _, t := range []struct {
		key   string
		field **float64
	}{{"abs", &m.Abs}, {"rel", &m.Rel}} {
		f, ok := fs.get(t.key)
		if !ok {
			continue
		}
		if !structured {
			l.errorf(f.key, "%s applies to json and numbers, not %s: a tolerance for numbers", t.key, m.Kind)
			continue
		}
		if v, ok := l.number(f.val, t.key); ok {
			if v < 0 {
				l.errorf(f.val, "%s %v is below 0: a tolerance is 0 or more, like %s: 1e-9", t.key, v, t.key)
				continue
			}
			*t.field = &v
		}
	}
	switch {
	case m.Kind == verdict.Regex && kindNode.Kind == yaml.ScalarNode && kindNode.ShortTag() == "!!str":
		pattern := m.Value
		if m.IgnoreCase {
			pattern = "(?i)" + pattern
		}
		if _, err := regexp.Compile(pattern); err != nil {
			l.errorf(kindNode, "regex %q is not a valid RE2 expression: %s", short(m.Value), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	case m.Kind == verdict.Numbers && m.Value != "" && len(strings.Fields(m.Value)) == 0:
		l.errorf(kindNode, "numbers has no token: give the expected output, like numbers: \"3 0.5\"")
	}
	return m
}

func containsKind(ks []verdict.Kind, k verdict.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func kindList(ks []verdict.Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " and ")
}

// jsonValue is a json matcher's expected value as JSON text: a string
// holds JSON text (checked here), any other YAML value is the value
// itself. With lines: true, a list is one document a line, and a string
// one document a line.
func (l *loader) jsonValue(n *yaml.Node, fs fields) (string, bool) {
	lines := false
	if f, ok := fs.get("lines"); ok && f.val.Kind == yaml.ScalarNode && f.val.Value == "true" {
		lines = true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		docs := []string{n.Value}
		if lines {
			docs = strings.Split(strings.TrimRight(n.Value, "\n"), "\n")
		}
		for i, d := range docs {
			m := verdict.Matcher{Kind: verdict.JSON, Value: d}
			if err := m.Validate(); err != nil {
				if lines {
					l.errorf(n, "json line %d: %s: write one JSON document a line, or the value as YAML", i+1, strings.TrimPrefix(err.Error(), "the expected value is not JSON: "))
				} else {
					l.errorf(n, "json: the string is not JSON (%s): write the value as YAML, like json: {total: 3}, or a string holding JSON", strings.TrimPrefix(err.Error(), "the expected value is not JSON: "))
				}
				return "", false
			}
		}
		return n.Value, true
	}
	if lines && n.Kind == yaml.SequenceNode {
		docs := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			var b strings.Builder
			if !l.writeYAMLAsJSON(&b, item) {
				return "", false
			}
			docs = append(docs, b.String())
		}
		return strings.Join(docs, "\n"), true
	}
	if lines {
		l.errorf(n, "json with lines: true takes a list (one value a line) or a string (one JSON document a line), got %s", describe(n))
		return "", false
	}
	var b strings.Builder
	if !l.writeYAMLAsJSON(&b, n) {
		return "", false
	}
	return b.String(), true
}

// jsonNumber is a JSON number's grammar.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// writeYAMLAsJSON writes the YAML value n as JSON text. A number keeps
// the digits written (1.0 stays 1.0: numbers compare by value), other
// YAML number forms (0x1F, 1_000, .5) are converted; NaN, infinities,
// aliases and tags JSON has no value for are errors at their position.
func (l *loader) writeYAMLAsJSON(b *strings.Builder, n *yaml.Node) bool {
	switch n.Kind {
	case yaml.AliasNode:
		l.errorf(n, "json: an alias (*%s) in an expected value: write the value out", n.Value)
		return false
	case yaml.MappingNode:
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				l.errorf(k, "json: a member name must be a plain scalar, got %s", describe(k))
				return false
			}
			if seen[k.Value] {
				l.errorf(k, "json: the member %q appears twice: keep one", short(k.Value))
				return false
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			name, _ := json.Marshal(k.Value)
			b.Write(name)
			b.WriteByte(':')
			if !l.writeYAMLAsJSON(b, v) {
				return false
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if !l.writeYAMLAsJSON(b, item) {
				return false
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			b.WriteString("null")
		case "!!bool":
			var v bool
			_ = n.Decode(&v)
			b.WriteString(strconv.FormatBool(v))
		case "!!int", "!!float":
			if jsonNumber.MatchString(n.Value) {
				b.WriteString(n.Value)
				break
			}
			var v float64
			if err := n.Decode(&v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				l.errorf(n, "json: %s is not a number JSON has (no NaN or infinity)", short(n.Value))
				return false
			}
			if n.ShortTag() == "!!int" {
				var i int64
				if n.Decode(&i) == nil {
					b.WriteString(strconv.FormatInt(i, 10))
					break
				}
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		default: // strings, and timestamps and the like as their text
			s, _ := json.Marshal(n.Value)
			b.Write(s)
		}
	default:
		l.errorf(n, "json: %s is not a JSON value", describe(n))
		return false
	}
	return true
}

// numbersValue is a numbers matcher's expected tokens: a string, or a
// list of numbers and words.
func (l *loader) numbersValue(n *yaml.Node) (string, bool) {
	if n.Kind == yaml.SequenceNode {
		toks := make([]string, 0, len(n.Content))
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" || strings.TrimSpace(item.Value) == "" || len(strings.Fields(item.Value)) != 1 {
				l.errorf(item, "numbers[%d] must be one number or word, got %s", i, describe(item))
				return "", false
			}
			toks = append(toks, item.Value)
		}
		if len(toks) == 0 {
			l.errorf(n, "numbers is an empty list: give the expected tokens, like numbers: [3, 0.5]")
			return "", false
		}
		return strings.Join(toks, " "), true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		return n.Value, true // 3, 0.5 and "3 0.5" alike
	}
	l.errorf(n, "numbers must be a string of tokens or a list, like numbers: \"3 0.5\" or numbers: [3, 0.5], got %s", describe(n))
	return "", false
}

// answer parses a matcher's answer or answer_file (a checker's only): the
// text the checker gets as its answer file, inline or from a tracked file
// (read under the workspace rule, relative to the spec's folder, or to the
// cases file's for a case in one).
func (l *loader) answer(stream string, fs fields, m *verdict.Matcher) {
	ans, hasAnswer := fs.get("answer")
	file, hasFile := fs.get("answer_file")
	for _, f := range []struct {
		has bool
		f   field
	}{{hasAnswer, ans}, {hasFile, file}} {
		if f.has && m.Kind != verdict.Checker {
			l.errorf(f.f.key, "%s applies to checker, not %s: it is what a checker compares the output with (a checker matcher: {checker: NAME, %s: ...})", f.f.key.Value, m.Kind, f.f.key.Value)
			return
		}
	}
	m.AnswerGiven = hasAnswer || hasFile
	switch {
	case hasAnswer && hasFile:
		l.errorf(later(ans.key, file.key), "%s has both answer and answer_file: give the answer inline or name the file that holds it, not both", stream)
	case hasAnswer:
		m.Answer, _ = l.str(ans.val, "answer")
	case hasFile:
		if ref, ok := l.path(file.val, "answer_file"); ok {
			if data, ok := l.read(file.val, "answer_file", ref); ok {
				m.Answer, m.AnswerFile = string(data), ref.rel
			}
		}
	}
}
