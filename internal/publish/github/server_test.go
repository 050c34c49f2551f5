package github

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// testToken is the token every test client sends; a test server refuses any
// request without it.
const testToken = "ghs_test0123456789"

// request is one request a test server received.
type request struct {
	Method string
	Path   string
	Query  string
	Body   []byte
}

// fakeGitHub is an httptest server that checks the token on every request,
// records what it receives and answers through the handlers a test
// registers on mux.
type fakeGitHub struct {
	*httptest.Server
	mux *http.ServeMux

	mu   sync.Mutex
	reqs []request
}

// newFakeGitHub starts a server for t, closed when t ends.
func newFakeGitHub(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{mux: http.NewServeMux()}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("%s %s: Authorization %q, want the test token", r.Method, r.URL.Path, got)
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("%s %s: reading the body: %v", r.Method, r.URL.Path, err)
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body})
		f.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		f.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// requests returns what the server received so far.
func (f *fakeGitHub) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// writes returns the requests other than GET.
func (f *fakeGitHub) writes() []request {
	var out []request
	for _, r := range f.requests() {
		if r.Method != http.MethodGet {
			out = append(out, r)
		}
	}
	return out
}

// forbidden answers 403 the way GitHub does for an integration.
func forbidden(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusForbidden, map[string]string{
		"message":           "Resource not accessible by integration",
		"documentation_url": "https://docs.github.com/rest",
	})
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// decode unmarshals a recorded body into a generic value for t.
func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return m
}

// nowhere is a server that must never be reached: a test points a default
// or a redirect at it.
func nowhere(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request reached a host the environment did not name: %s %s (Authorization %q)", r.Method, r.URL, r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(s.Close)
	return s
}

// watch is a transport that records the origin of every request that leaves
// the client, wherever it goes.
type watch struct {
	mu      sync.Mutex
	origins []string
}

// RoundTrip implements http.RoundTripper.
func (w *watch) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.origins = append(w.origins, origin(r.URL))
	w.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// seen returns the origins requested so far.
func (w *watch) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.origins...)
}

// testClient returns a client of f for the repository octo/repo, with f as
// both the API and the GraphQL host.
func testClient(t *testing.T, f *fakeGitHub) *Client {
	t.Helper()
	c, err := NewClient(Env{APIURL: f.URL, GraphQLURL: f.URL + "/graphql", Repository: "octo/repo", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// isNotPermitted reports whether err is a *NotPermittedError.
func isNotPermitted(err error) bool {
	var np *NotPermittedError
	return errors.As(err, &np) && errors.Is(err, ErrNotPermitted)
}

// viewer answers GraphQL's viewer query with login.
func viewer(login string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": login}}})
	}
}

// user answers GET /user with login.
func user(login string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"login": login, "id": 1})
	}
}
