package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/reporttest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// chromium returns Debian's headless Chromium; the test skips without it,
// unless BEHAVES_REQUIRE_CHROMIUM=1 (which .ci/run sets after installing
// it), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BEHAVES_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is required (BEHAVES_REQUIRE_CHROMIUM=1): not found (apt-get install chromium)")
	}
	t.Skip("chromium not installed (apt-get install chromium)")
	return ""
}

// loaded is a page as Chromium left it after loading it.
type loaded struct {
	doc    *html.Node
	root   map[string]string // the <html> element's attributes
	stderr string
}

// load renders r to a file, has Chromium load it (no network: the page
// asks for nothing, and a file:// page gets no other origin) and parses
// the DOM it dumps after the page's script ran. mutate, when not nil,
// edits the page's bytes first.
func load(t *testing.T, bin string, r report.Report, mutate func([]byte) []byte) loaded {
	t.Helper()
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := Render(&buf, r, Limits{}); err != nil {
		t.Fatal(err)
	}
	page := buf.Bytes()
	if mutate != nil {
		page = mutate(page)
	}
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Chromium runs as root here, which needs --no-sandbox; it loads only
	// the page written above. Its own profile folder keeps concurrent runs
	// apart. --enable-logging=stderr prints the console, where a CSP
	// violation is reported.
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	doc, err := html.Parse(&stdout)
	if err != nil {
		t.Fatalf("parsing Chromium's DOM: %v", err)
	}
	l := loaded{doc: doc, root: map[string]string{}, stderr: stderr.String()}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "html" {
			for _, a := range n.Attr {
				l.root[a.Key] = a.Val
			}
		}
	})
	if l.root["lang"] == "" {
		t.Fatalf("Chromium dumped no page:\n%.2000s\nstderr:\n%s", stdout.String(), l.stderr)
	}
	return l
}

// cspViolation reports whether Chromium logged a refusal under the CSP.
func cspViolation(stderr string) bool {
	return strings.Contains(stderr, "Content Security Policy") || strings.Contains(stderr, "Refused to")
}

// TestChromium loads the pages in a real browser: the script ran (under
// the CSP, by its hash: a violation is logged and the script stops), the
// counts and a failing case's expected and actual output are in the DOM,
// the filter shows the programs that are not true, and hostile output
// made no element and ran nothing.
func TestChromium(t *testing.T) {
	bin := chromium(t)

	t.Run("fixture", func(t *testing.T) {
		p := load(t, bin, roundTrip(t, fixture()), nil)
		if cspViolation(p.stderr) {
			t.Errorf("Chromium logged a CSP violation:\n%s", p.stderr)
		}
		if p.root["data-filter"] != "ready" {
			t.Fatalf("the page's script did not run (html attributes %v):\n%s", p.root, p.stderr)
		}
		// 3 false and 1 undetermined: the filter starts with those.
		if p.root["data-shown"] != "4" || p.root["data-matched"] != "4" {
			t.Errorf("shown %s of %s matched, want 4 of 4", p.root["data-shown"], p.root["data-matched"])
		}
		all := text(p.doc)
		for _, s := range []string{"Buzz", "ZeroDivisionError: division by zero", "image not present", "0.6667"} {
			if !strings.Contains(all, s) {
				t.Errorf("the page lacks %q", s)
			}
		}
		visible := map[string]bool{}
		walk(p.doc, func(n *html.Node) {
			if name, ok := attr(n, "data-name"); ok {
				_, hidden := attr(n, "hidden")
				visible[name] = !hidden
			}
			if v, ok := attr(n, "data-count"); ok && v == "programs-false" && text(n) != "3" {
				t.Errorf("false count %q, want 3", text(n))
			}
		})
		for name, want := range map[string]bool{"fizzbuzz": false, "off-by-one": true, "crash": true, "missing-image": true, "samples/b.py": true, "samples/a.py": false} {
			if visible[name] != want {
				t.Errorf("program %s visible %v, want %v", name, visible[name], want)
			}
		}
	})

	t.Run("hostile", func(t *testing.T) {
		p := load(t, bin, roundTrip(t, hostileReport()), nil)
		if p.root["data-filter"] != "ready" {
			t.Fatalf("the page's script did not run (html attributes %v)", p.root)
		}
		if v, ok := p.root["data-pwned"]; ok {
			t.Errorf("hostile output ran a script: data-pwned=%q", v)
		}
		scripts := 0
		walk(p.doc, func(n *html.Node) {
			switch n.Type {
			case html.ElementNode:
				if !allowedElements[n.Data] {
					t.Errorf("element <%s> in the loaded page", n.Data)
				}
				if n.Data == "script" {
					scripts++
				}
				if id, _ := attr(n, "id"); strings.HasPrefix(id, "pwned") {
					t.Errorf("element with id %q in the loaded page", id)
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "on") {
						t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
					}
				}
			case html.CommentNode:
				t.Errorf("comment in the loaded page: %q", n.Data)
			}
		})
		if scripts != 1 {
			t.Errorf("%d scripts in the loaded page", scripts)
		}
		all := text(p.doc)
		for _, s := range hostileStrings[:6] {
			if !strings.Contains(all, s) {
				t.Errorf("the loaded page's text lacks %q", s)
			}
		}
		for _, s := range []string{`ctl \x01\x1b[31mred\x7f nul\x00`, `bad utf-8 \xff\xfe\xc3`, `line\u2028separator`} {
			if !strings.Contains(all, s) {
				t.Errorf("the loaded page's text lacks %q", s)
			}
		}
	})

	// A run given stored reports: the reuse line and the hostile detail
	// as text, and the script ran under the policy.
	t.Run("reused", func(t *testing.T) {
		p := load(t, bin, reporttest.Reused(t), nil)
		if cspViolation(p.stderr) {
			t.Errorf("Chromium logged a CSP violation:\n%s", p.stderr)
		}
		if p.root["data-filter"] != "ready" {
			t.Fatalf("the page's script did not run (html attributes %v)", p.root)
		}
		walk(p.doc, func(n *html.Node) {
			if n.Type == html.ElementNode && !allowedElements[n.Data] {
				t.Errorf("element <%s> in the loaded page", n.Data)
			}
		})
		all := text(p.doc)
		for _, s := range []string{"reused 6 of 10 invocations from run run-0100", "run run-0099, execution bbbbbbbb-", "<script>alert(1)</script> | cell | `code` \\x1b[31mred"} {
			if !strings.Contains(all, s) {
				t.Errorf("the loaded page's text lacks %q", s)
			}
		}
	})

	// A script whose bytes no longer match the hash in the policy must not
	// run: this is what makes data-filter="ready" proof that the hash
	// matches, and shows that Chromium enforces the policy.
	t.Run("hash mismatch", func(t *testing.T) {
		p := load(t, bin, roundTrip(t, fixture()), func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"use strict";`), []byte(`"use strict"; `), 1)
		})
		if p.root["data-filter"] == "ready" {
			t.Error("a script that does not match its hash ran")
		}
		if !cspViolation(p.stderr) {
			t.Errorf("Chromium logged no CSP violation:\n%s", p.stderr)
		}
	})

	t.Run("5000 programs", func(t *testing.T) {
		r := manyPrograms(5000)
		p := load(t, bin, r, nil)
		if p.root["data-filter"] != "ready" {
			t.Fatalf("the page's script did not run (html attributes %v)", p.root)
		}
		c := r.Counts.Programs
		if want := fmt.Sprint(c.False + c.Undetermined); p.root["data-matched"] != want {
			t.Errorf("matched %s, want the %s programs that are not true", p.root["data-matched"], want)
		}
		if p.root["data-shown"] != fmt.Sprint(DefaultLimits.PageSize) {
			t.Errorf("shown %s, want a page of %d", p.root["data-shown"], DefaultLimits.PageSize)
		}
		shown := 0
		walk(p.doc, func(n *html.Node) {
			if v, ok := attr(n, "data-verdict"); ok {
				if _, hidden := attr(n, "hidden"); !hidden {
					shown++
					if v == verdict.True.String() {
						t.Errorf("a true program is shown")
					}
				}
			}
		})
		if shown != DefaultLimits.PageSize {
			t.Errorf("%d programs visible, want %d", shown, DefaultLimits.PageSize)
		}
	})
}
