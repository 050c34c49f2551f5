package github

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// The endpoints used when GITHUB_API_URL is unset, as on github.com.
const (
	DefaultAPIURL     = "https://api.github.com"
	DefaultGraphQLURL = "https://api.github.com/graphql"
)

// requestTimeout bounds one HTTP exchange, so that a hung endpoint cannot
// hold publishing (and the job) until the job's own timeout.
const requestTimeout = time.Minute

// userAgent is what GitHub sees; the API refuses requests without one.
const userAgent = "behaves"

// Env holds the Actions values the client needs. The caller reads them (from
// the environment or its flags); the package never does.
type Env struct {
	// APIURL is GITHUB_API_URL, e.g. https://api.github.com or
	// https://ghes.example/api/v3. "" means DefaultAPIURL.
	APIURL string
	// GraphQLURL is GITHUB_GRAPHQL_URL. "" means DefaultGraphQLURL when
	// APIURL is "" too; otherwise there is no GraphQL endpoint, since the
	// token must not go to a host the environment did not name.
	GraphQLURL string
	// Repository is GITHUB_REPOSITORY, "owner/name".
	Repository string
	// Token authenticates every request. It is never logged and never part
	// of an error.
	Token string
}

// Client talks to one repository through the REST and GraphQL endpoints of
// one GitHub instance. It is safe for concurrent use.
type Client struct {
	rest       *gh.Client
	http       *http.Client
	graphqlURL string // "" when there is no GraphQL endpoint
	owner      string
	repo       string

	mu    sync.Mutex
	login string // the token's identity, once known
}

// repositoryPattern is what GitHub allows in owner and repository names; it
// also keeps path elements such as ".." out of the URLs built from them.
var repositoryPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9._-]+$`)

// NewClient returns a client for env. It makes no request.
func NewClient(env Env) (*Client, error) {
	return newClient(env, nil)
}

// newClient is NewClient over base (nil: a clone of http.DefaultTransport), so that a
// test can watch every request the client makes, wherever it goes.
func newClient(env Env, base http.RoundTripper) (*Client, error) {
	if env.Token == "" {
		return nil, errors.New("creating the GitHub client: no token")
	}
	owner, repo, _ := strings.Cut(env.Repository, "/")
	if !repositoryPattern.MatchString(env.Repository) || repo == "." || repo == ".." {
		return nil, fmt.Errorf("creating the GitHub client: repository %q is not owner/name", env.Repository)
	}

	apiURL, graphqlURL := env.APIURL, env.GraphQLURL
	if apiURL == "" {
		apiURL = DefaultAPIURL
		if graphqlURL == "" {
			graphqlURL = DefaultGraphQLURL
		}
	}
	api, err := parseEndpoint("GITHUB_API_URL", apiURL)
	if err != nil {
		return nil, err
	}
	// go-github resolves paths against BaseURL and requires it to end in a
	// slash. It is used as the environment gave it: go-github's
	// WithEnterpriseURLs would append /api/v3/, which is wrong for
	// api.github.com and for a GITHUB_API_URL that already has it.
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/"
	}
	origins := map[string]bool{origin(api): true}
	if graphqlURL != "" {
		gq, err := parseEndpoint("GITHUB_GRAPHQL_URL", graphqlURL)
		if err != nil {
			return nil, err
		}
		graphqlURL = gq.String()
		origins[origin(gq)] = true
	}

	if base == nil {
		// A transport of its own: http.DefaultTransport is shared by the
		// whole process, and whoever calls its CloseIdleConnections (an
		// httptest server's Close does) breaks a request of ours that
		// was just handed an idle connection; a POST is not retried.
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	hc := &http.Client{
		Transport: &authTransport{base: base, token: env.Token, origins: origins},
		Timeout:   requestTimeout,
	}
	rest := gh.NewClient(hc)
	rest.BaseURL = api
	rest.UploadURL = api
	rest.UserAgent = userAgent
	return &Client{rest: rest, http: hc, graphqlURL: graphqlURL, owner: owner, repo: repo}, nil
}

// parseEndpoint checks that raw, the value of the variable name, is an
// absolute http(s) URL with nothing in it that could carry a credential.
func parseEndpoint(name, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("creating the GitHub client: %s is not a URL", name)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("creating the GitHub client: %s %q is not an http or https URL", name, u.Redacted())
	case u.Host == "":
		return nil, fmt.Errorf("creating the GitHub client: %s %q has no host", name, u.Redacted())
	case u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("creating the GitHub client: %s %q must not carry credentials, a query or a fragment", name, u.Redacted())
	}
	return u, nil
}

// origin is the scheme and host of u, lower case and without a default port,
// the unit the token is allowed to go to.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Host)
	if h, port, err := net.SplitHostPort(host); err == nil &&
		(scheme == "https" && port == "443" || scheme == "http" && port == "80") {
		host = h
		if strings.Contains(h, ":") {
			host = "[" + h + "]"
		}
	}
	return scheme + "://" + host
}

// authTransport adds the token to requests for the named origins and refuses
// every other request, redirects included: a request elsewhere would be a
// bug or a hostile redirect, and either way must not carry the token.
type authTransport struct {
	base    http.RoundTripper
	token   string
	origins map[string]bool
}

// RoundTrip implements http.RoundTripper.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := origin(req.URL); !t.origins[o] {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("refusing a request to %s: not the API or GraphQL endpoint the environment named", o)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// ErrNotPermitted matches (with errors.Is) every *NotPermittedError.
var ErrNotPermitted = errors.New("not permitted")

// NotPermittedError says GitHub refused an operation with 403 or 404, as it
// does for the read-only token of a fork's pull request. The caller logs it
// as a notice and carries on: reporting never fails the gate.
type NotPermittedError struct {
	// Op says what was refused, e.g. "creating the comment on #12".
	Op string
	// StatusCode is 403 or 404.
	StatusCode int
	// Err is go-github's error.
	Err error
}

// Error implements error.
func (e *NotPermittedError) Error() string {
	return fmt.Sprintf("%s: not permitted (HTTP %d); the token may be read-only, as for a pull request from a fork", e.Op, e.StatusCode)
}

// Unwrap returns go-github's error.
func (e *NotPermittedError) Unwrap() error { return e.Err }

// Is reports whether target is ErrNotPermitted.
func (e *NotPermittedError) Is(target error) bool { return target == ErrNotPermitted }

// apiError wraps err from doing op: a 403 or 404 (but not a rate limit,
// which go-github reports as its own types) becomes a *NotPermittedError.
func apiError(op string, err error) error {
	var er *gh.ErrorResponse
	if errors.As(err, &er) && er.Response != nil &&
		(er.Response.StatusCode == http.StatusForbidden || er.Response.StatusCode == http.StatusNotFound) {
		return &NotPermittedError{Op: op, StatusCode: er.Response.StatusCode, Err: err}
	}
	return fmt.Errorf("%s: %w", op, err)
}
