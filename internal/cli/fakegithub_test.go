package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// ghToken is the token the emulated runner hands behaves; the fake GitHub
// refuses any request without it.
const ghToken = "ghs_emulated0123456789"

// ghComment is a pull request comment the fake GitHub holds.
type ghComment struct {
	ID    int64
	Body  string
	Login string
}

// ghRequest is one request the fake GitHub received.
type ghRequest struct {
	Method, Path string
	Body         []byte
}

// fakeGitHub is an httptest server that plays the parts of the REST and
// GraphQL APIs publishing uses, for the repository octo/repo: the token's
// identity (GET /user refused as for an installation token, GraphQL viewer
// github-actions), the comments of pull request 7, the open pull requests,
// and check runs. It checks the token on every request and records what it
// receives.
type fakeGitHub struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	reqs     []ghRequest
	comments []ghComment
	nextID   int64
	// forbidComments answers comment writes with 403, as GitHub does for a
	// fork's read-only token.
	forbidComments bool
	// checkRuns holds each check run's creation body, and batches the
	// number of annotations of every create and update, in order.
	checkRuns []map[string]any
	batches   []int
	// pulls is what GET /repos/octo/repo/pulls lists (JSON).
	pulls string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, nextID: 100, pulls: "[]"}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	if got := r.Header.Get("Authorization"); got != "Bearer "+ghToken {
		f.t.Errorf("%s %s: Authorization %q, want the runner's token", r.Method, r.URL.Path, got)
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("reading a request: %v", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, ghRequest{Method: r.Method, Path: r.URL.Path, Body: body})
	w.Header().Set("Content-Type", "application/json")
	reply := func(code int, v any) {
		w.WriteHeader(code)
		if err := json.NewEncoder(w).Encode(v); err != nil {
			f.t.Errorf("encoding a reply: %v", err)
		}
	}
	var in map[string]any
	if len(body) > 0 {
		if err := json.Unmarshal(body, &in); err != nil {
			f.t.Errorf("%s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
		}
	}
	const comments = "/repos/octo/repo/issues/7/comments"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/user":
		reply(http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
	case r.Method == http.MethodPost && r.URL.Path == "/graphql":
		reply(http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]string{"login": "github-actions"}}})
	case r.Method == http.MethodGet && r.URL.Path == comments:
		var out []map[string]any
		for _, c := range f.comments {
			out = append(out, commentJSON(c))
		}
		reply(http.StatusOK, out)
	case r.Method == http.MethodPost && r.URL.Path == comments:
		if f.forbidComments {
			reply(http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		f.nextID++
		c := ghComment{ID: f.nextID, Body: fmt.Sprint(in["body"]), Login: "github-actions[bot]"}
		f.comments = append(f.comments, c)
		reply(http.StatusCreated, commentJSON(c))
	case r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/repos/octo/repo/issues/comments/"):
		id, _ := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/repos/octo/repo/issues/comments/"), 10, 64)
		for i := range f.comments {
			if f.comments[i].ID == id {
				f.comments[i].Body = fmt.Sprint(in["body"])
				reply(http.StatusOK, commentJSON(f.comments[i]))
				return
			}
		}
		reply(http.StatusNotFound, map[string]string{"message": "Not Found"})
	case r.Method == http.MethodGet && r.URL.Path == "/repos/octo/repo/pulls":
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, f.pulls)
	case r.Method == http.MethodPost && r.URL.Path == "/repos/octo/repo/check-runs":
		f.checkRuns = append(f.checkRuns, in)
		f.batches = append(f.batches, annotationCount(in))
		reply(http.StatusCreated, map[string]any{"id": 1, "html_url": "https://github.test/octo/repo/runs/1"})
	case r.Method == http.MethodPatch && r.URL.Path == "/repos/octo/repo/check-runs/1":
		f.batches = append(f.batches, annotationCount(in))
		reply(http.StatusOK, map[string]any{"id": 1})
	default:
		f.t.Errorf("fake GitHub: unexpected %s %s", r.Method, r.URL.Path)
		reply(http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

func commentJSON(c ghComment) map[string]any {
	return map[string]any{"id": c.ID, "body": c.Body, "user": map[string]string{"login": c.Login},
		"html_url": fmt.Sprintf("https://github.test/octo/repo/pull/7#issuecomment-%d", c.ID)}
}

func annotationCount(in map[string]any) int {
	out, _ := in["output"].(map[string]any)
	anns, _ := out["annotations"].([]any)
	return len(anns)
}

// snapshot returns the comments and the write requests received so far.
func (f *fakeGitHub) snapshot() (comments []ghComment, writes []ghRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.reqs {
		if r.Method != http.MethodGet && r.Path != "/graphql" {
			writes = append(writes, r)
		}
	}
	return append([]ghComment(nil), f.comments...), writes
}
