package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// viewerQuery asks GraphQL who the token is.
const viewerQuery = `{"query":"query { viewer { login } }"}`

// Login returns the login of the token's identity, learned once per client.
//
// It asks GET /user first. GitHub refuses that with 403 for installation
// tokens, the default GITHUB_TOKEN included; then it asks GraphQL's
// viewer { login } at GITHUB_GRAPHQL_URL, which answers every token.
func (c *Client) Login(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.login != "" {
		return c.login, nil
	}
	user, _, err := c.rest.Users.Get(ctx, "")
	var login string
	var er *gh.ErrorResponse
	switch {
	case err == nil:
		login = user.GetLogin()
	case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden:
		if login, err = c.viewerLogin(ctx); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("learning the token's identity (GET /user): %w", err)
	}
	if login == "" {
		return "", errors.New("learning the token's identity: GitHub returned no login")
	}
	c.login = login
	return login, nil
}

// viewerLogin asks the GraphQL endpoint for viewer { login }.
func (c *Client) viewerLogin(ctx context.Context) (string, error) {
	const op = "learning the token's identity (GraphQL viewer, after GET /user was refused)"
	if c.graphqlURL == "" {
		return "", fmt.Errorf("%s: GITHUB_GRAPHQL_URL is not set, and GITHUB_API_URL is, so there is no GraphQL endpoint to ask", op)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.graphqlURL, strings.NewReader(viewerQuery))
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLResponseBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: reading the answer: %w", op, err)
	}
	if len(body) > maxGraphQLResponseBytes {
		return "", fmt.Errorf("%s: the answer exceeds %d bytes", op, maxGraphQLResponseBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: HTTP %d", op, resp.StatusCode)
	}
	var answer struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&answer); err != nil {
		return "", fmt.Errorf("%s: decoding the answer: %w", op, err)
	}
	if len(answer.Errors) > 0 {
		return "", fmt.Errorf("%s: %q", op, answer.Errors[0].Message)
	}
	return answer.Data.Viewer.Login, nil
}

// sameLogin reports whether two logins name the same account. Logins are
// case-insensitive, and the REST API names an app's comments "<app>[bot]"
// while GraphQL's viewer is "<app>", so a [bot] suffix is dropped on both
// sides.
func sameLogin(a, b string) bool {
	a, b = trimBot(a), trimBot(b)
	return a != "" && strings.EqualFold(a, b)
}

// trimBot drops a trailing "[bot]", in any case.
func trimBot(login string) string {
	const suffix = "[bot]"
	if len(login) >= len(suffix) && strings.EqualFold(login[len(login)-len(suffix):], suffix) {
		return login[:len(login)-len(suffix)]
	}
	return login
}
