package github

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestNewClientBaseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, api, graphql  string
		wantBase, wantGraph string
	}{
		{"unset means github.com", "", "", "https://api.github.com/", "https://api.github.com/graphql"},
		{"github.com as given, no /api/v3", "https://api.github.com", "https://api.github.com/graphql", "https://api.github.com/", "https://api.github.com/graphql"},
		{"enterprise kept as is", "https://ghes.example/api/v3", "https://ghes.example/api/graphql", "https://ghes.example/api/v3/", "https://ghes.example/api/graphql"},
		{"trailing slash not doubled", "https://ghes.example/api/v3/", "", "https://ghes.example/api/v3/", ""},
		{"API named, GraphQL not: no default GraphQL", "http://127.0.0.1:9", "", "http://127.0.0.1:9/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(Env{APIURL: tc.api, GraphQLURL: tc.graphql, Repository: "octo/repo", Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.rest.BaseURL.String(); got != tc.wantBase {
				t.Errorf("BaseURL = %q, want %q", got, tc.wantBase)
			}
			if c.graphqlURL != tc.wantGraph {
				t.Errorf("GraphQL URL = %q, want %q", c.graphqlURL, tc.wantGraph)
			}
		})
	}
}

func TestNewClientRefuses(t *testing.T) {
	t.Parallel()
	good := Env{APIURL: "https://api.github.com", Repository: "octo/repo", Token: testToken}
	for _, tc := range []struct {
		name string
		edit func(*Env)
		want string
	}{
		{"no token", func(e *Env) { e.Token = "" }, "no token"},
		{"repository without owner", func(e *Env) { e.Repository = "repo" }, "not owner/name"},
		{"repository with a path", func(e *Env) { e.Repository = "octo/repo/../x" }, "not owner/name"},
		{"repository dot-dot", func(e *Env) { e.Repository = "octo/.." }, "not owner/name"},
		{"API URL not http", func(e *Env) { e.APIURL = "file:///etc/passwd" }, "not an http or https URL"},
		{"API URL relative", func(e *Env) { e.APIURL = "api.github.com" }, "not an http or https URL"},
		{"API URL with credentials", func(e *Env) { e.APIURL = "https://user:pw@api.github.com" }, "must not carry credentials"},
		{"GraphQL URL with a query", func(e *Env) { e.GraphQLURL = "https://api.github.com/graphql?x=1" }, "must not carry credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := good
			tc.edit(&env)
			_, err := NewClient(env)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), testToken) {
				t.Errorf("error %q shows a credential", err)
			}
		})
	}
}

func TestLoginFromUser(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /user", user("octocat"))
	c := testClient(t, f)
	for range 2 {
		got, err := c.Login(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got != "octocat" {
			t.Errorf("Login = %q, want octocat", got)
		}
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (the identity is learned once)", n)
	}
}

// An installation token (the default GITHUB_TOKEN) is refused GET /user;
// GraphQL's viewer answers instead, at GITHUB_GRAPHQL_URL.
func TestLoginFallsBackToGraphQL(t *testing.T) {
	t.Parallel()
	api := newFakeGitHub(t)
	api.mux.HandleFunc("GET /user", forbidden)
	gql := newFakeGitHub(t)
	gql.mux.HandleFunc("POST /api/graphql", func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": "github-actions"}}})
	})
	c, err := NewClient(Env{APIURL: api.URL, GraphQLURL: gql.URL + "/api/graphql", Repository: "octo/repo", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Login(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got != "github-actions" {
		t.Errorf("Login = %q, want github-actions", got)
	}
	reqs := gql.requests()
	if len(reqs) != 1 {
		t.Fatalf("GraphQL got %d requests, want 1", len(reqs))
	}
	if q, _ := decode(t, reqs[0].Body)["query"].(string); !strings.Contains(q, "viewer") || !strings.Contains(q, "login") {
		t.Errorf("GraphQL query %q does not ask for viewer { login }", q)
	}
}

func TestLoginGraphQLErrors(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /user", forbidden)
	f.mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "boom"}}})
	})
	_, err := testClient(t, f).Login(context.Background())
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want GraphQL's message", err)
	}
}

func TestSameLogin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"github-actions[bot]", "github-actions", true},
		{"github-actions", "github-actions[bot]", true},
		{"my-app[bot]", "my-app[bot]", true},
		{"Octocat", "octocat", true},
		{"octocat", "octocat2", false},
		{"github-actions[bot]", "someone-else", false},
		{"[bot]", "", false},
		{"", "", false},
	} {
		if got := sameLogin(tc.a, tc.b); got != tc.want {
			t.Errorf("sameLogin(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// The token goes only to the hosts the environment named: a redirect to
// another host is refused before anything is sent, and with GITHUB_API_URL
// set and GITHUB_GRAPHQL_URL unset the GraphQL fallback does not guess a
// default host.
func TestTokenStaysOnNamedHosts(t *testing.T) {
	t.Parallel()
	elsewhere := nowhere(t)
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /user", forbidden)
	f.mux.HandleFunc("GET /repos/octo/repo/issues/1/comments", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/steal", http.StatusFound)
	})
	w := &watch{}
	c, err := newClient(Env{APIURL: f.URL, Repository: "octo/repo", Token: testToken}, w)
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.Login(context.Background())
	if err == nil || !strings.Contains(err.Error(), "GITHUB_GRAPHQL_URL is not set") {
		t.Errorf("Login err = %v, want one saying there is no GraphQL endpoint", err)
	}
	_, _, err = c.rest.Issues.ListComments(context.Background(), "octo", "repo", 1, nil)
	if err == nil || !strings.Contains(err.Error(), "refusing a request") {
		t.Errorf("following the redirect: err = %v, want a refusal", err)
	}

	u, _ := url.Parse(f.URL)
	for _, o := range w.seen() {
		if o != origin(u) {
			t.Errorf("a request went to %s, not only to %s", o, origin(u))
		}
	}
	if err != nil && strings.Contains(err.Error(), testToken) {
		t.Errorf("error %q shows the token", err)
	}
}

func TestAPIErrorNotPermitted(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /repos/octo/repo/issues/1/comments", forbidden)
	f.mux.HandleFunc("GET /repos/octo/repo/issues/2/comments", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	})
	f.mux.HandleFunc("GET /repos/octo/repo/issues/3/comments", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"message": "oops"})
	})
	// A rate limit is a 403 too, but says nothing about permissions.
	f.mux.HandleFunc("GET /repos/octo/repo/issues/4/comments", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "API rate limit exceeded"})
	})
	c := testClient(t, f)
	for n, want := range map[int]bool{1: true, 2: true, 3: false, 4: false} {
		_, _, err := c.rest.Issues.ListComments(context.Background(), "octo", "repo", n, nil)
		err = apiError("listing", err)
		if got := errors.Is(err, ErrNotPermitted); got != want {
			t.Errorf("issue %d: errors.Is(%v, ErrNotPermitted) = %v, want %v", n, err, got, want)
		}
	}
}

// Publishing a fork's run end to end (finding the pull request, learning the
// identity through GraphQL, the sticky comment, the check run) talks only to
// the two endpoints the environment named, and a GraphQL endpoint that
// redirects elsewhere gets nothing sent on.
func TestPublishTalksOnlyToNamedEndpoints(t *testing.T) {
	t.Parallel()
	elsewhere := nowhere(t)
	api := checksAPI(t, 0)
	api.mux.HandleFunc("GET /user", forbidden)
	api.mux.HandleFunc("GET /repos/octo/repo/pulls", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, []any{pull(12, forkHeadSHA)})
	})
	api.mux.HandleFunc("GET /repos/octo/repo/issues/12/comments", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, []any{})
	})
	api.mux.HandleFunc("POST /repos/octo/repo/issues/12/comments", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"id": 5})
	})
	gql := newFakeGitHub(t)
	gql.mux.HandleFunc("POST /graphql", viewer("github-actions"))
	w := &watch{}
	c, err := newClient(Env{APIURL: api.URL, GraphQLURL: gql.URL + "/graphql", Repository: "octo/repo", Token: testToken}, w)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ev := readTestEvent(t, "workflow_run", "workflow_run_fork")
	pr, err := c.PullRequestNumber(ctx, ev)
	if err != nil || pr != 12 {
		t.Fatalf("PR %d, %v; want 12", pr, err)
	}
	if _, err := c.PublishComment(ctx, Comment{PR: pr, Marker: "<!-- m -->", Body: "<!-- m -->\nx", Mode: CommentUpdate}); err != nil {
		t.Fatal(err)
	}
	run := CheckRun{Name: "behaves", HeadSHA: ev.HeadSHA(), Conclusion: ConclusionSuccess, Title: "t", Summary: "s", Annotations: annotations(51)}
	if _, err := c.PublishCheckRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	apiURL, _ := url.Parse(api.URL)
	gqlURL, _ := url.Parse(gql.URL)
	named := map[string]bool{origin(apiURL): true, origin(gqlURL): true}
	seen := w.seen()
	for _, o := range seen {
		if !named[o] {
			t.Errorf("a request went to %s", o)
		}
	}
	if len(seen) != 7 || len(gql.requests()) != 1 {
		t.Errorf("requests to %v (GraphQL: %d), want 7 of them, 1 to GraphQL", seen, len(gql.requests()))
	}

	// A GraphQL endpoint that redirects: the redirect is not followed.
	redirecting := newFakeGitHub(t)
	redirecting.mux.HandleFunc("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/graphql", http.StatusTemporaryRedirect)
	})
	redirecting.mux.HandleFunc("GET /user", forbidden)
	c = testClient(t, redirecting)
	if _, err := c.Login(ctx); err == nil || !strings.Contains(err.Error(), "refusing a request") {
		t.Errorf("Login err = %v, want the redirect refused", err)
	}
}
