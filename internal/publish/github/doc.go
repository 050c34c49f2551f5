// Package github owns behaves' side of the GitHub API: reading the Actions
// event that triggered a run, checking that a report belongs to the
// workflow_run being published, and the sinks that post already-rendered
// content to a pull request (a sticky comment) and to the Checks API (a check
// run with its annotations).
//
// It renders nothing: bodies, summaries and annotation texts arrive as
// strings from the caller, which owns their form and their escaping. It reads
// nothing from the process environment either: the caller passes the values
// of GITHUB_API_URL, GITHUB_GRAPHQL_URL, GITHUB_REPOSITORY, GITHUB_EVENT_PATH
// and the token in, so that tests can point every one of them at an httptest
// server.
//
// # Where the token goes
//
// The token is attached only to requests for the API and GraphQL endpoints
// the caller named (https://api.github.com and its /graphql endpoint only
// when GITHUB_API_URL is unset), and a redirect to any other host is refused,
// so a misconfigured or hostile endpoint cannot forward it elsewhere. Errors
// never contain it.
//
// # Failing soft
//
// A fork's pull request runs with a read-only token, so posting is refused
// with 403 or 404. Every sink returns such a refusal as a *NotPermittedError
// (errors.Is(err, ErrNotPermitted)), which the caller logs as a notice:
// reporting never fails the gate.
//
// # Imports
//
// It imports go-github and the standard library, and nothing of behaves (a
// test keeps it so): package report imports the spec and runner packages, so
// the provenance check takes the three strings it needs (Provenance) rather
// than a report.GitHub.
package github
