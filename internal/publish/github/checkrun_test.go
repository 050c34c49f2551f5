package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/behaves-dev/behaves/internal/ghlimits"
)

// checksAPI fakes the Checks API of octo/repo: check run 77 is created by
// POST and updated by PATCH; refuse says which request (1-based) gets a 403.
func checksAPI(t *testing.T, refuse int) *fakeGitHub {
	t.Helper()
	f := newFakeGitHub(t)
	n := 0
	answer := func(w http.ResponseWriter, r *http.Request, status int) {
		n++
		if n == refuse {
			forbidden(w, r)
			return
		}
		writeJSON(w, status, map[string]any{"id": 77, "html_url": "https://github.com/octo/repo/runs/77"})
	}
	f.mux.HandleFunc("POST /repos/octo/repo/check-runs", func(w http.ResponseWriter, r *http.Request) { answer(w, r, http.StatusCreated) })
	f.mux.HandleFunc("PATCH /repos/octo/repo/check-runs/77", func(w http.ResponseWriter, r *http.Request) { answer(w, r, http.StatusOK) })
	return f
}

// annotations returns n annotations, the i-th on line i+1.
func annotations(n int) []Annotation {
	out := make([]Annotation, n)
	for i := range out {
		out[i] = Annotation{Path: "demo/behaves.yml", StartLine: i + 1, Level: LevelFailure, Title: fmt.Sprintf("fizzbuzz / case %d", i+1), Message: "expected 1, got 2"}
	}
	return out
}

// testCheckRun is a check run on the pull request's head.
func testCheckRun(t *testing.T, n int) CheckRun {
	t.Helper()
	ev := readTestEvent(t, "pull_request", "pull_request")
	return CheckRun{
		Name:        "behaves",
		HeadSHA:     ev.HeadSHA(),
		Conclusion:  ConclusionFailure,
		Title:       "3 of 40 programs false",
		Summary:     "## behaves\n3 of 40 programs false",
		Annotations: annotations(n),
	}
}

// Every annotation is sent, 50 a request: 120 take a create and two updates,
// each with the output's title and summary as the API requires; the check
// is on the pull request's head, not the merge commit.
func TestPublishCheckRunBatches(t *testing.T) {
	t.Parallel()
	f := checksAPI(t, 0)
	res, err := testClient(t, f).PublishCheckRun(context.Background(), testCheckRun(t, 120))
	if err != nil {
		t.Fatal(err)
	}
	if want := (CheckRunResult{ID: 77, URL: "https://github.com/octo/repo/runs/77", AnnotationsSent: 120}); res != want {
		t.Errorf("result %+v, want %+v", res, want)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	line := 1
	for i, r := range reqs {
		wantMethod, wantPath := http.MethodPatch, "/repos/octo/repo/check-runs/77"
		if i == 0 {
			wantMethod, wantPath = http.MethodPost, "/repos/octo/repo/check-runs"
		}
		if r.Method != wantMethod || r.Path != wantPath {
			t.Errorf("request %d: %s %s, want %s %s", i+1, r.Method, r.Path, wantMethod, wantPath)
		}
		body := decode(t, r.Body)
		if body["name"] != "behaves" {
			t.Errorf("request %d: name %v", i+1, body["name"])
		}
		out := body["output"].(map[string]any)
		if out["title"] != "3 of 40 programs false" || out["summary"] != "## behaves\n3 of 40 programs false" {
			t.Errorf("request %d: output title %v, summary %v", i+1, out["title"], out["summary"])
		}
		batch := out["annotations"].([]any)
		if want := []int{50, 50, 20}[i]; len(batch) != want {
			t.Errorf("request %d: %d annotations, want %d", i+1, len(batch), want)
		}
		for _, a := range batch {
			if got := a.(map[string]any)["start_line"]; got != float64(line) {
				t.Errorf("request %d: annotation at line %v, want %d (in order, none lost or repeated)", i+1, got, line)
			}
			line++
		}
	}
	create := decode(t, reqs[0].Body)
	if create["head_sha"] != headSHA || create["status"] != "completed" || create["conclusion"] != "failure" {
		t.Errorf("create: head_sha %v, status %v, conclusion %v; want the PR head %s, completed, failure",
			create["head_sha"], create["status"], create["conclusion"], headSHA)
	}
}

// TestPublishCheckRunCeiling guards the request ceiling: past
// MaxCheckRunAnnotations (25 requests of 50) no annotation is sent, the
// first ones are, in order, and the result counts the rest.
func TestPublishCheckRunCeiling(t *testing.T) {
	t.Parallel()
	for _, n := range []int{MaxCheckRunAnnotations, MaxCheckRunAnnotations + 1, 20000} {
		f := checksAPI(t, 0)
		res, err := testClient(t, f).PublishCheckRun(context.Background(), testCheckRun(t, n))
		if err != nil {
			t.Fatal(err)
		}
		if res.AnnotationsSent != 1250 || res.AnnotationsNotSent != n-1250 {
			t.Errorf("%d annotations: %d sent, %d not sent; want 1250 and %d", n, res.AnnotationsSent, res.AnnotationsNotSent, n-1250)
		}
		reqs := f.requests()
		if len(reqs) != 25 {
			t.Errorf("%d annotations: %d requests, want 25", n, len(reqs))
		}
		line := 1
		for i, r := range reqs {
			batch := decode(t, r.Body)["output"].(map[string]any)["annotations"].([]any)
			if len(batch) != MaxAnnotationsPerRequest {
				t.Errorf("%d annotations: request %d has %d, want %d", n, i+1, len(batch), MaxAnnotationsPerRequest)
			}
			for _, a := range batch {
				if got := a.(map[string]any)["start_line"]; got != float64(line) {
					t.Fatalf("%d annotations: request %d: annotation at line %v, want %d (the first ones, in order)", n, i+1, got, line)
				}
				line++
			}
		}
	}
}

func TestPublishCheckRunFewAnnotations(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 50} {
		f := checksAPI(t, 0)
		run := testCheckRun(t, n)
		run.Conclusion = ConclusionNeutral
		res, err := testClient(t, f).PublishCheckRun(context.Background(), run)
		if err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()
		if len(reqs) != 1 || res.AnnotationsSent != n {
			t.Fatalf("%d annotations: %d requests, %d sent; want 1 request", n, len(reqs), res.AnnotationsSent)
		}
		body := decode(t, reqs[0].Body)
		got, _ := body["output"].(map[string]any)["annotations"].([]any)
		if len(got) != n || body["conclusion"] != "neutral" {
			t.Errorf("%d annotations: sent %d, conclusion %v", n, len(got), body["conclusion"])
		}
	}
}

func TestAnnotationAPI(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ü", MaxAnnotationMessageBytes)
	for _, tc := range []struct {
		name string
		in   Annotation
		want map[string]any
	}{
		{"columns on one line", Annotation{Path: "a.py", StartLine: 3, EndLine: 3, StartColumn: 5, EndColumn: 9, Level: LevelWarning, Title: "t", Message: "m", RawDetails: "d"},
			map[string]any{"path": "a.py", "start_line": 3.0, "end_line": 3.0, "start_column": 5.0, "end_column": 9.0, "annotation_level": "warning", "title": "t", "message": "m", "raw_details": "d"}},
		{"no columns across lines", Annotation{Path: "a.py", StartLine: 3, EndLine: 4, StartColumn: 5, EndColumn: 9, Level: LevelNotice, Message: "m"},
			map[string]any{"path": "a.py", "start_line": 3.0, "end_line": 4.0, "annotation_level": "notice", "message": "m"}},
		{"lines clamped", Annotation{Path: "a.py", StartLine: 0, EndLine: -2, Level: LevelFailure, Message: "m"},
			map[string]any{"path": "a.py", "start_line": 1.0, "end_line": 1.0, "annotation_level": "failure", "message": "m"}},
		{"end column before start", Annotation{Path: "a.py", StartLine: 2, StartColumn: 7, EndColumn: 1, Level: LevelFailure, Message: "m"},
			map[string]any{"path": "a.py", "start_line": 2.0, "end_line": 2.0, "start_column": 7.0, "end_column": 7.0, "annotation_level": "failure", "message": "m"}},
	} {
		f := checksAPI(t, 0)
		run := testCheckRun(t, 0)
		run.Annotations = []Annotation{tc.in}
		if _, err := testClient(t, f).PublishCheckRun(context.Background(), run); err != nil {
			t.Fatal(err)
		}
		got := decode(t, f.requests()[0].Body)["output"].(map[string]any)["annotations"].([]any)[0]
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	a := Annotation{Path: "a.py", StartLine: 1, Level: LevelFailure, Title: long, Message: long, RawDetails: long}.api()
	for name, s := range map[string]struct {
		got string
		max int
	}{"title": {*a.Title, MaxAnnotationTitleBytes}, "message": {*a.Message, MaxAnnotationMessageBytes}, "raw_details": {*a.RawDetails, MaxAnnotationRawDetailsBytes}} {
		if len(s.got) > s.max || len(s.got) < s.max-8 || !utf8.ValidString(s.got) || !strings.HasSuffix(s.got, annotationCutMarker) {
			t.Errorf("%s: %d bytes (limit %d), valid UTF-8 %v", name, len(s.got), s.max, utf8.ValidString(s.got))
		}
	}
}

func TestPublishCheckRunSummaryCut(t *testing.T) {
	t.Parallel()
	f := checksAPI(t, 0)
	run := testCheckRun(t, 60)
	run.Summary = "## behaves\n" + strings.Repeat("€", ghlimits.CheckRunSummaryBytes)
	if _, err := testClient(t, f).PublishCheckRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for i, r := range f.requests() {
		s := decode(t, r.Body)["output"].(map[string]any)["summary"].(string)
		if len(s) > ghlimits.CheckRunSummaryBytes || len(s) < ghlimits.CheckRunSummaryBytes-3 || !utf8.ValidString(s) ||
			!strings.HasPrefix(s, "## behaves\n€") || !strings.HasSuffix(s, summaryCutMarker) {
			t.Errorf("request %d: summary of %d bytes (valid UTF-8 %v) ending %q", i+1, len(s), utf8.ValidString(s), s[max(0, len(s)-50):])
		}
	}
}

func TestPublishCheckRunNotPermitted(t *testing.T) {
	t.Parallel()
	f := checksAPI(t, 1)
	res, err := testClient(t, f).PublishCheckRun(context.Background(), testCheckRun(t, 120))
	if !isNotPermitted(err) || res != (CheckRunResult{}) {
		t.Fatalf("create refused: %+v, %v; want nothing and a *NotPermittedError", res, err)
	}

	f = checksAPI(t, 3)
	res, err = testClient(t, f).PublishCheckRun(context.Background(), testCheckRun(t, 120))
	if !isNotPermitted(err) || res.ID != 77 || res.AnnotationsSent != 100 {
		t.Fatalf("second update refused: %+v, %v; want check 77 with 100 annotations and a *NotPermittedError", res, err)
	}
	if !strings.Contains(err.Error(), "annotations 101 to 120") {
		t.Errorf("err %q does not say which annotations were lost", err)
	}
}

func TestValidateCheckName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"behaves / report", "behaves", "é / 報告", strings.Repeat("x", MaxCheckNameRunes), strings.Repeat("é", MaxCheckNameRunes)} {
		if err := ValidateCheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for name, want := range map[string]string{
		"":                                       "empty",
		"   ":                                    "empty",
		" behaves":                               "starts or ends with space",
		"behaves\n":                              "starts or ends with space",
		"behaves\xff":                            "not UTF-8",
		strings.Repeat("x", MaxCheckNameRunes+1): "101 characters, more than 100",
		"behaves\x1b[31m":                        "character 8 is U+001B",
		"behaves\u202e / report":                 "character 8 is U+202E",
		"behaves\u200b":                          "character 8 is U+200B",
		"behaves\u2028report":                    "character 8 is U+2028",
		"behaves\nreport":                        "character 8 is U+000A",
		"behaves\treport":                        "character 8 is U+0009",
	} {
		err := ValidateCheckName(name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", name, err, want)
		}
	}
}

func TestPublishCheckRunRefuses(t *testing.T) {
	t.Parallel()
	f := checksAPI(t, 0)
	c := testClient(t, f)
	for name, edit := range map[string]func(*CheckRun){
		"no head sha":         func(r *CheckRun) { r.HeadSHA = "" },
		"a branch, not a sha": func(r *CheckRun) { r.HeadSHA = "main" },
		"no name":             func(r *CheckRun) { r.Name = "" },
		"a control character": func(r *CheckRun) { r.Name = "behaves\x1b[2J" },
		"no summary":          func(r *CheckRun) { r.Summary = "" },
		"unknown conclusion":  func(r *CheckRun) { r.Conclusion = "skipped" },
		"annotation level":    func(r *CheckRun) { r.Annotations[3].Level = "error" },
		"annotation path":     func(r *CheckRun) { r.Annotations[0].Path = "" },
		"annotation message":  func(r *CheckRun) { r.Annotations[0].Message = "" },
	} {
		run := testCheckRun(t, 5)
		edit(&run)
		if _, err := c.PublishCheckRun(context.Background(), run); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if reqs := f.requests(); len(reqs) != 0 {
		t.Errorf("%d requests, want none", len(reqs))
	}
}
