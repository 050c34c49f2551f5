package verdict

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The bounds of parsing output as JSON or as numbers. A program's kept
// output is already bounded by its output_limit; these keep judging it
// within what the output costs to hold: a nesting bomb or a number of a
// million digits is evidence (false, naming the bound), never a crash or
// a quadratic comparison.
const (
	// MaxJSONDepth is the deepest nesting of arrays and objects parsed
	// (encoding/json's own bound).
	MaxJSONDepth = 10000
	// MaxNumberLength is the longest number, in characters, compared.
	MaxNumberLength = 4096
	// maxUnorderedWork bounds the element comparisons of an unordered
	// comparison with tolerances (n × m pairs tried).
	maxUnorderedWork = 10_000_000
)

// jsonKind is a JSON value's type.
type jsonKind byte

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jsonValue is one parsed JSON value. Numbers keep their text, so that
// they compare exactly as decimals; objects keep their members in order.
type jsonValue struct {
	kind    jsonKind
	boolean bool
	text    string // a number's or a string's
	items   []jsonValue
	members []jsonMember
}

type jsonMember struct {
	name  string
	value jsonValue
}

// jsonError is where and why text stopped being one JSON document.
type jsonError struct {
	line, col int
	msg       string
	// atEnd: the text ended where more was needed (a cut stream may have
	// had it).
	atEnd bool
	// bound: a parse bound (depth, number length) was exceeded.
	bound bool
}

func (e *jsonError) Error() string { return fmt.Sprintf("line %d column %d: %s", e.line, e.col, e.msg) }

// parseJSON parses data as exactly one JSON document (RFC 8259: UTF-8,
// no duplicate member names, whitespace around it).
func parseJSON(data []byte) (jsonValue, *jsonError) {
	p := jsonParser{data: data, line: 1, lineStart: 0}
	p.space()
	if p.pos >= len(p.data) {
		return jsonValue{}, p.fail(true, "no JSON document")
	}
	v, err := p.value(0)
	if err != nil {
		return jsonValue{}, err
	}
	p.space()
	if p.pos < len(p.data) {
		return jsonValue{}, p.fail(false, "more after the JSON document")
	}
	return v, nil
}

type jsonParser struct {
	data      []byte
	pos       int
	line      int
	lineStart int
}

func (p *jsonParser) fail(atEnd bool, format string, args ...any) *jsonError {
	col := utf8.RuneCount(p.data[p.lineStart:min(p.pos, len(p.data))]) + 1
	return &jsonError{line: p.line, col: col, msg: fmt.Sprintf(format, args...), atEnd: atEnd}
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

// unexpected fails at the current byte: the end of the text, or a byte
// no JSON value has there.
func (p *jsonParser) unexpected(what string) *jsonError {
	if p.pos >= len(p.data) {
		return p.fail(true, "the text ends where %s belongs", what)
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return p.fail(false, "%s where %s belongs", strconv.QuoteRune(r), what)
}

func (p *jsonParser) value(depth int) (jsonValue, *jsonError) {
	if p.pos >= len(p.data) {
		return jsonValue{}, p.unexpected("a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= MaxJSONDepth {
			e := p.fail(false, "nested deeper than %d levels (the bound behaves parses to)", MaxJSONDepth)
			e.bound = true
			return jsonValue{}, e
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return jsonValue{kind: jsonString, text: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return jsonValue{kind: jsonBool, boolean: true}, p.literal("true")
	case c == 'f':
		return jsonValue{kind: jsonBool}, p.literal("false")
	case c == 'n':
		return jsonValue{kind: jsonNull}, p.literal("null")
	}
	return jsonValue{}, p.unexpected("a value")
}

// literal reads true, false or null. A word that is none of them is
// named where it starts (text ending inside one may still be one).
func (p *jsonParser) literal(word string) *jsonError {
	start := p.pos
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) {
			return p.unexpected(strconv.Quote(word))
		}
		if p.data[p.pos] != word[i] {
			p.pos = start
			return p.unexpected("a value")
		}
		p.pos++
	}
	return nil
}

func (p *jsonParser) object(depth int) (jsonValue, *jsonError) {
	v := jsonValue{kind: jsonObject}
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return v, p.unexpected("a member name")
		}
		at := *p
		name, err := p.str()
		if err != nil {
			return v, err
		}
		if seen[name] {
			return v, at.fail(false, "the member name %s appears twice in one object: that is not one JSON value", quoteCut([]byte(name), reasonWidth))
		}
		seen[name] = true
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return v, p.unexpected(`":"`)
		}
		p.pos++
		p.space()
		item, err := p.value(depth)
		if err != nil {
			return v, err
		}
		v.members = append(v.members, jsonMember{name, item})
		p.space()
		if p.pos >= len(p.data) {
			return v, p.unexpected(`"," or "}"`)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return v, p.unexpected(`"," or "}"`)
		}
	}
}

func (p *jsonParser) array(depth int) (jsonValue, *jsonError) {
	v := jsonValue{kind: jsonArray}
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		item, err := p.value(depth)
		if err != nil {
			return v, err
		}
		v.items = append(v.items, item)
		p.space()
		if p.pos >= len(p.data) {
			return v, p.unexpected(`"," or "]"`)
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return v, p.unexpected(`"," or "]"`)
		}
	}
}

// number reads a JSON number (RFC 8259's grammar), at most
// MaxNumberLength characters long.
func (p *jsonParser) number() (jsonValue, *jsonError) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return jsonValue{}, p.unexpected("a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return jsonValue{}, p.unexpected("a digit")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return jsonValue{}, p.unexpected("a digit")
		}
	}
	if n := p.pos - start; n > MaxNumberLength {
		p.pos = start
		e := p.fail(false, "a number of %d characters, longer than %d (the bound behaves compares to)", n, MaxNumberLength)
		e.bound = true
		return jsonValue{}, e
	}
	return jsonValue{kind: jsonNumber, text: string(p.data[start:p.pos])}, nil
}

// str reads a JSON string: UTF-8, no control characters, valid escapes.
func (p *jsonParser) str() (string, *jsonError) {
	p.pos++ // "
	var b strings.Builder
	for {
		if p.pos >= len(p.data) {
			return "", p.fail(true, "the text ends inside a string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail(false, "a control character (%#02x) inside a string", c)
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			p.pos++
		default:
			r, n := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && n <= 1 {
				if !utf8.FullRune(p.data[p.pos:]) {
					return "", p.fail(true, "the text ends inside a UTF-8 sequence")
				}
				return "", p.fail(false, "invalid UTF-8 inside a string")
			}
			b.WriteRune(r)
			p.pos += n
		}
	}
}

func (p *jsonParser) escape(b *strings.Builder) *jsonError {
	p.pos++ // backslash
	if p.pos >= len(p.data) {
		return p.fail(true, "the text ends inside an escape")
	}
	c := p.data[p.pos]
	p.pos++
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			// A pair makes one rune; a lone surrogate is kept as U+FFFD,
			// as encoding/json does.
			if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return err
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
				} else {
					p.pos = save
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError
			}
		}
		b.WriteRune(r)
	default:
		p.pos--
		return p.fail(false, "an invalid escape \\%c inside a string", c)
	}
	return nil
}

func (p *jsonParser) hex4() (rune, *jsonError) {
	if p.pos+4 > len(p.data) {
		return 0, p.fail(true, "the text ends inside a \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, p.fail(false, "an invalid \\u escape inside a string")
	}
	p.pos += 4
	return rune(n), nil
}

// decimal is a number's exact value: 0 or ±0.digits × 10^exp, digits
// without leading or trailing zeros. Two numbers are equal exactly when
// their decimals are ("1", "1.0" and "1e0" are).
type decimal struct {
	neg    bool
	digits string
	exp    *big.Int // nil for 0
}

// parseDecimal reads a number's text (JSON's grammar, or a numbers
// token's: a sign, digits with an optional point, an optional exponent);
// ok is false when it is not one.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if s != "" && (s[0] == '-' || s[0] == '+') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
		if expText == "" {
			return d, false
		}
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return d, false
	}
	exp := new(big.Int)
	if expText != "" {
		t := expText
		if t[0] == '+' || t[0] == '-' {
			t = t[1:]
		}
		if t == "" || !allDigits(t) {
			return d, false
		}
		exp.SetString(expText, 10) // the digits were checked
	}
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	all = strings.TrimLeft(all, "0")
	if all == "" {
		return decimal{}, true // zero, of either sign
	}
	// 0.ddd × 10^(len(intPart) - lead + exp)
	exp.Add(exp, big.NewInt(int64(len(intPart)-lead)))
	d.digits = strings.TrimRight(all, "0")
	d.exp = exp
	return d, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (d decimal) equal(o decimal) bool {
	if d.digits == "" || o.digits == "" {
		return d.digits == o.digits
	}
	return d.neg == o.neg && d.digits == o.digits && d.exp.Cmp(o.exp) == 0
}

// key is a text that two decimals share exactly when they are equal.
func (d decimal) key() string {
	if d.digits == "" {
		return "0"
	}
	sign := "+"
	if d.neg {
		sign = "-"
	}
	return sign + "0." + d.digits + "e" + d.exp.String()
}
