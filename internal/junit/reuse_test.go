package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/behaves-dev/behaves/internal/escape"
	"github.com/behaves-dev/behaves/internal/goldentest"
	"github.com/behaves-dev/behaves/internal/junit/junittest"
	"github.com/behaves-dev/behaves/internal/reporttest"
)

// xmlProperty and the types below read back what go-junit does not: a
// testcase's properties, and a suite's in order.
type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlCase struct {
	Name       string        `xml:"name,attr"`
	Properties []xmlProperty `xml:"properties>property"`
	Failure    *struct {
		Body string `xml:",chardata"`
	} `xml:"failure"`
}

type xmlSuite struct {
	Name       string        `xml:"name,attr"`
	Properties []xmlProperty `xml:"properties>property"`
	Cases      []xmlCase     `xml:"testcase"`
}

func decodeSuites(t *testing.T, data []byte) []xmlSuite {
	t.Helper()
	var doc struct {
		Suites []xmlSuite `xml:"testsuite"`
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("decoding the JUnit file: %v", err)
	}
	return doc.Suites
}

func props(ps []xmlProperty) map[string]string {
	m := map[string]string{}
	for _, p := range ps {
		m[p.Name] = p.Value
	}
	return m
}

// TestReused guards the JUnit file of a run given stored reports: each
// program's suite counts its invocations reused and run now and names the
// runs its reused evidence came from; each reused testcase says where
// from (run_id/execution_id), each that ran now why (the reason).
func TestReused(t *testing.T) {
	t.Parallel()
	data := render(t, reporttest.Reused(t), Options{})
	goldentest.Check(t, "reused.xml", data)
	gs := junittest.Check(t, data)
	if len(gs) != 3 {
		t.Fatalf("%d suites, want 3", len(gs))
	}
	suites := decodeSuites(t, data)
	want := []map[string]string{
		{"behaves.reused": "6", "behaves.ran": "0", "behaves.reused_from_runs": "run-0100 run-0099"},
		{"behaves.reused": "0", "behaves.ran": "3", "behaves.reused_from_runs": ""},
		{"behaves.reused": "0", "behaves.ran": "1", "behaves.reused_from_runs": ""},
	}
	for i, s := range suites {
		got := props(s.Properties)
		for k, v := range want[i] {
			if got[k] != v {
				t.Errorf("suite %s: %s = %q, want %q", s.Name, k, got[k], v)
			}
		}
		// What go-junit reads agrees.
		if gs[i].Properties["behaves.reused"] != want[i]["behaves.reused"] {
			t.Errorf("go-junit reads suite %s's behaves.reused as %q", s.Name, gs[i].Properties["behaves.reused"])
		}
	}
	cases := map[string][]xmlProperty{}
	for _, s := range suites {
		for _, c := range s.Cases {
			cases[c.Name] = c.Properties
		}
	}
	stored, older := "run-0100/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "run-0099/bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
	for name, want := range map[string]xmlProperty{
		"empty":   {"behaves.reused_from", stored},
		"one":     {"behaves.reused_from", stored},
		"many":    {"behaves.reused_from", older},
		"thrice":  {"behaves.reused_from", stored},
		"hello":   {"behaves.not_reused", "changed: program"},
		"bye":     {"behaves.not_reused", "changed: program"},
		"hostile": {"behaves.not_reused", "undetermined"},
		"new":     {"behaves.not_reused", "no stored run"},
	} {
		if got := cases[name]; len(got) != 1 || got[0] != want {
			t.Errorf("testcase %s: properties %v, want %v", name, got, want)
		}
	}
}

// TestNoReuseProperties: a run given no stored reports has no reuse
// property anywhere.
func TestNoReuseProperties(t *testing.T) {
	t.Parallel()
	data := render(t, hostileReport(t), Options{})
	if bytes.Contains(data, []byte("reused")) || bytes.Contains(data, []byte("ran now")) {
		t.Error("a run given no stored reports speaks of reuse")
	}
}

// TestReusedHostileDetail: a not_reused detail quoting a stored report is
// escaped to one line of the failure's details, made of XML characters,
// its "]]>" unable to end the CDATA section.
func TestReusedHostileDetail(t *testing.T) {
	t.Parallel()
	r := reporttest.Reused(t)
	data := render(t, r, Options{})
	for _, raw := range []string{"\x1b", "\r", "\n::error::", "\n# heading"} {
		if bytes.Contains(data, []byte(raw)) {
			t.Errorf("the JUnit file holds %q raw", raw)
		}
	}
	junittest.Check(t, data)
	var body string
	for _, s := range decodeSuites(t, data) {
		for _, c := range s.Cases {
			if c.Name == "hostile" && c.Failure != nil {
				body = c.Failure.Body
			}
		}
	}
	want := "\nran now: undetermined: " + escape.Text(reporttest.HostileDetail) + "\n"
	if !strings.Contains(body, want) {
		t.Errorf("the failure's details lack %q:\n%s", want, body)
	}
	// A hostile reason, as a report that Read did not check could hold,
	// stays inside its attribute.
	for i := range r.Programs[1].Cases {
		if c := &r.Programs[1].Cases[i]; c.NotReused != nil {
			c.NotReused.Reason = `x"/><property name="behaves.verdict" value="true"/>` + "\x1b\n"
		}
	}
	data = render(t, r, Options{})
	junittest.Check(t, data)
	for _, s := range decodeSuites(t, data) {
		for _, c := range s.Cases {
			if len(c.Properties) != 1 {
				t.Errorf("testcase %s: %d properties, want 1", c.Name, len(c.Properties))
			}
		}
	}
}
