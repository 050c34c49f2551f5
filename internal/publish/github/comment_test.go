package github

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/behaves-dev/behaves/internal/ghlimits"
)

const marker = "<!-- behaves: demo/behaves.yml -->"

// issueThread fakes one pull request's comments (on #7), as the default
// GITHUB_TOKEN sees them: GET /user refused, GraphQL's viewer
// "github-actions", its comments written by "github-actions[bot]".
type issueThread struct {
	*fakeGitHub
	mu       sync.Mutex
	comments []map[string]any
	nextID   int64
	pageSize int
}

// newIssueThread starts the fake with the given comments, listed pageSize a
// page.
func newIssueThread(t *testing.T, pageSize int, existing ...map[string]any) *issueThread {
	t.Helper()
	th := &issueThread{fakeGitHub: newFakeGitHub(t), nextID: 1000, pageSize: pageSize}
	for _, cm := range existing {
		th.add(cm["user"].(string), cm["body"].(string))
	}
	th.mux.HandleFunc("GET /user", forbidden)
	th.mux.HandleFunc("POST /graphql", viewer("github-actions"))
	th.mux.HandleFunc("GET /repos/octo/repo/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		if pp := r.URL.Query().Get("per_page"); pp != "100" {
			t.Errorf("per_page %q, want 100", pp)
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		th.mu.Lock()
		defer th.mu.Unlock()
		lo := min((page-1)*th.pageSize, len(th.comments))
		hi := min(lo+th.pageSize, len(th.comments))
		if hi < len(th.comments) {
			w.Header().Set("Link", fmt.Sprintf(`<%s/repos/octo/repo/issues/7/comments?per_page=100&page=%d>; rel="next"`, th.URL, page+1))
		}
		writeJSON(w, http.StatusOK, th.comments[lo:hi])
	})
	th.mux.HandleFunc("POST /repos/octo/repo/issues/7/comments", func(w http.ResponseWriter, r *http.Request) {
		body, _ := decode(t, readBody(t, r))["body"].(string)
		writeJSON(w, http.StatusCreated, th.add("github-actions[bot]", body))
	})
	th.mux.HandleFunc("PATCH /repos/octo/repo/issues/comments/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
		body, _ := decode(t, readBody(t, r))["body"].(string)
		th.mu.Lock()
		defer th.mu.Unlock()
		for _, cm := range th.comments {
			if cm["id"] == id {
				cm["body"] = body
				writeJSON(w, http.StatusOK, cm)
				return
			}
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	return th
}

// add appends a comment by login and returns it.
func (th *issueThread) add(login, body string) map[string]any {
	th.mu.Lock()
	defer th.mu.Unlock()
	th.nextID++
	cm := map[string]any{
		"id":       th.nextID,
		"body":     body,
		"user":     map[string]any{"login": login},
		"html_url": fmt.Sprintf("https://github.com/octo/repo/pull/7#issuecomment-%d", th.nextID),
	}
	th.comments = append(th.comments, cm)
	return cm
}

// bodies returns each comment's author and body.
func (th *issueThread) bodies() [][2]string {
	th.mu.Lock()
	defer th.mu.Unlock()
	var out [][2]string
	for _, cm := range th.comments {
		out = append(out, [2]string{cm["user"].(map[string]any)["login"].(string), cm["body"].(string)})
	}
	return out
}

// readBody returns r's body for t (the fake set it back after recording).
func readBody(t *testing.T, r *http.Request) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPublishCommentCreatesThenEdits(t *testing.T) {
	t.Parallel()
	th := newIssueThread(t, 100, map[string]any{"user": "octocat", "body": "LGTM"})
	c := testClient(t, th.fakeGitHub)
	ctx := context.Background()

	first, err := c.PublishComment(ctx, Comment{PR: 7, Marker: marker, Body: marker + "\n3 of 40 false", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if first.Action != CommentCreated || first.ID == 0 {
		t.Fatalf("first publish: %+v, want created", first)
	}
	second, err := c.PublishComment(ctx, Comment{PR: 7, Marker: marker, Body: marker + "\nall true", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if second.Action != CommentUpdated || second.ID != first.ID {
		t.Fatalf("second publish: %+v, want comment %d updated", second, first.ID)
	}
	third, err := c.PublishComment(ctx, Comment{PR: 7, Marker: marker, Body: marker + "\nall true", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if third.Action != CommentUnchanged || third.ID != first.ID {
		t.Fatalf("third publish: %+v, want comment %d unchanged", third, first.ID)
	}

	writes := th.writes()
	var got []string
	for _, w := range writes {
		if w.Path == "/graphql" {
			continue
		}
		got = append(got, w.Method+" "+w.Path+" "+decode(t, w.Body)["body"].(string))
	}
	want := []string{
		"POST /repos/octo/repo/issues/7/comments " + marker + "\n3 of 40 false",
		fmt.Sprintf("PATCH /repos/octo/repo/issues/comments/%d %s\nall true", first.ID, marker),
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Errorf("writes:\n%q\nwant:\n%q", got, want)
	}
	if bodies := th.bodies(); len(bodies) != 2 || bodies[0] != [2]string{"octocat", "LGTM"} {
		t.Errorf("comments %q, want octocat's and one sticky comment", bodies)
	}
}

// A look-alike comment with the same marker, by someone else, is neither
// edited nor taken for the sticky comment; the token's own one is found on
// a later page, though REST calls it github-actions[bot] and GraphQL
// github-actions.
func TestPublishCommentOwnOnly(t *testing.T) {
	t.Parallel()
	existing := []map[string]any{
		{"user": "mallory", "body": marker + "\nall true (forged)"},
		{"user": "github-actions-fake", "body": marker + "\nforged too"},
		{"user": "octocat", "body": "unrelated"},
		{"user": "github-actions[bot]", "body": "another tool's comment"},
		{"user": "github-actions[bot]", "body": marker + "\nold result"},
	}
	th := newIssueThread(t, 2, existing...)
	c := testClient(t, th.fakeGitHub)
	res, err := c.PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker + "\nnew result", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentUpdated || res.ID != 1005 {
		t.Fatalf("%+v, want comment 1005 updated", res)
	}
	bodies := th.bodies()
	for i, e := range existing[:4] {
		if bodies[i] != [2]string{e["user"].(string), e["body"].(string)} {
			t.Errorf("comment %d changed: %q", i, bodies[i])
		}
	}
	if len(bodies) != 5 || bodies[4][1] != marker+"\nnew result" {
		t.Errorf("comments %q", bodies)
	}

	// With only the look-alikes there, a comment of its own is created.
	th = newIssueThread(t, 100, existing[:2]...)
	res, err = testClient(t, th.fakeGitHub).PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker + "\nnew", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentCreated {
		t.Fatalf("%+v, want created", res)
	}
	if bodies := th.bodies(); len(bodies) != 3 || bodies[0][1] != marker+"\nall true (forged)" || bodies[1][1] != marker+"\nforged too" {
		t.Errorf("comments %q", bodies)
	}
}

// The sticky comment is the token's own comment whose first line is exactly
// the marker. Another bot's comment by the same identity (every workflow's
// GITHUB_TOKEN is github-actions[bot]) that quotes the marker mid-body or
// after other text on its first line is not ours; of two that are, the
// oldest is edited and the newer one counted.
func TestPublishCommentMarkerOnFirstLineOnly(t *testing.T) {
	t.Parallel()
	existing := []map[string]any{
		{"user": "github-actions[bot]", "body": "Another workflow says:\n" + marker + "\nall true (quoted)"},
		{"user": "github-actions[bot]", "body": marker + "\r\nthe real sticky comment"},
		{"user": "github-actions[bot]", "body": marker + " trailing\nnot a marker line"},
		{"user": "github-actions[bot]", "body": "> " + marker + "\nquoted"},
		{"user": "github-actions[bot]", "body": marker + "\na newer duplicate"},
		{"user": "github-actions[bot]", "body": "and again, quoting it last: " + marker},
	}
	th := newIssueThread(t, 2, existing...)
	res, err := testClient(t, th.fakeGitHub).PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker + "\nnew result", Mode: CommentUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentUpdated || res.ID != 1002 || res.Others != 1 {
		t.Fatalf("%+v, want comment 1002 (the oldest real one) updated and 1 other", res)
	}
	bodies := th.bodies()
	if len(bodies) != len(existing) {
		t.Fatalf("%d comments, want %d (none created)", len(bodies), len(existing))
	}
	for i, e := range existing {
		want := e["body"].(string)
		if i == 1 {
			want = marker + "\nnew result"
		}
		if bodies[i][1] != want {
			t.Errorf("comment %d: %q, want %q", 1001+i, bodies[i][1], want)
		}
	}

	// A body whose first line is not its marker is refused before anything
	// is read or written: it could never be found again.
	for _, body := range []string{"intro\n" + marker, " " + marker + "\nx", marker + "x"} {
		if _, err := testClient(t, th.fakeGitHub).PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: body, Mode: CommentUpdate}); err == nil || !strings.Contains(err.Error(), "first line") {
			t.Errorf("body %q: %v, want the first-line error", body, err)
		}
	}
}

func TestPublishCommentModes(t *testing.T) {
	t.Parallel()
	th := newIssueThread(t, 100, map[string]any{"user": "github-actions[bot]", "body": marker + "\nold"})
	c := testClient(t, th.fakeGitHub)
	if res, err := c.PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker, Mode: CommentOff}); err != nil || res.Action != CommentSkipped {
		t.Fatalf("off: %+v, %v", res, err)
	}
	if reqs := th.requests(); len(reqs) != 0 {
		t.Fatalf("off made requests: %v", reqs)
	}
	for range 2 {
		res, err := c.PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker + "\nnew", Mode: CommentNew})
		if err != nil || res.Action != CommentCreated {
			t.Fatalf("new: %+v, %v", res, err)
		}
	}
	if n := len(th.bodies()); n != 3 {
		t.Errorf("%d comments, want 3 (new never edits)", n)
	}
	if _, err := c.PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker, Mode: "sticky"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	for _, s := range []string{"update", "new", "off"} {
		if m, err := ParseCommentMode(s); err != nil || string(m) != s {
			t.Errorf("ParseCommentMode(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseCommentMode(""); err == nil {
		t.Error(`ParseCommentMode("") accepted`)
	}
}

func TestPublishCommentNotPermitted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		handler func(f *fakeGitHub)
	}{
		{"create refused", func(f *fakeGitHub) {
			f.mux.HandleFunc("GET /user", user("octocat"))
			f.mux.HandleFunc("GET /repos/octo/repo/issues/7/comments", func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, http.StatusOK, []any{})
			})
			f.mux.HandleFunc("POST /repos/octo/repo/issues/7/comments", forbidden)
		}},
		{"listing not found", func(f *fakeGitHub) {
			f.mux.HandleFunc("GET /user", user("octocat"))
			f.mux.HandleFunc("GET /repos/octo/repo/issues/7/comments", func(w http.ResponseWriter, _ *http.Request) {
				writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t)
			tc.handler(f)
			res, err := testClient(t, f).PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: marker + "\nx", Mode: CommentUpdate})
			if !isNotPermitted(err) {
				t.Fatalf("err = %v, want a *NotPermittedError", err)
			}
			if res != (CommentResult{}) {
				t.Errorf("result %+v, want none", res)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("error %q shows the token", err)
			}
		})
	}
}

func TestPublishCommentBody(t *testing.T) {
	t.Parallel()
	th := newIssueThread(t, 100)
	c := testClient(t, th.fakeGitHub)
	long := marker + "\n" + strings.Repeat("é", ghlimits.CommentBytes)
	if _, err := c.PublishComment(context.Background(), Comment{PR: 7, Marker: marker, Body: long, Mode: CommentNew}); err != nil {
		t.Fatal(err)
	}
	sent := th.bodies()[0][1]
	if len(sent) > ghlimits.CommentBytes || !utf8.ValidString(sent) || !strings.HasPrefix(sent, marker) || !strings.HasSuffix(sent, commentCutMarker) {
		t.Errorf("sent %d bytes (valid UTF-8 %v), ending %q", len(sent), utf8.ValidString(sent), sent[max(0, len(sent)-60):])
	}

	for _, cm := range []Comment{
		{PR: 7, Marker: marker, Body: "no marker", Mode: CommentUpdate},
		{PR: 7, Marker: "", Body: "x", Mode: CommentUpdate},
		{PR: 7, Marker: marker, Body: strings.Repeat("x", ghlimits.CommentBytes) + marker, Mode: CommentUpdate},
		{PR: 0, Marker: marker, Body: marker, Mode: CommentUpdate},
	} {
		if _, err := c.PublishComment(context.Background(), cm); err == nil {
			t.Errorf("accepted %q… on #%d with marker %q", cm.Body[:min(len(cm.Body), 20)], cm.PR, cm.Marker)
		}
	}
	if n := len(th.requests()); n != 1 {
		t.Errorf("%d requests, want only the first comment's", n)
	}
}
