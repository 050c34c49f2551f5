package github

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	headSHA     = "1111111111111111111111111111111111111111"
	forkHeadSHA = "4444444444444444444444444444444444444444"
)

// readTestEvent reads testdata/<file>.json as the event name.
func readTestEvent(t *testing.T, name, file string) *Event {
	t.Helper()
	ev, err := ReadEvent(name, filepath.Join("testdata", file+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestReadEvent(t *testing.T) {
	t.Parallel()
	octo := Repository{ID: 100, FullName: "octo/repo", Owner: "octo"}
	fork := Repository{ID: 200, FullName: "forker/repo", Owner: "forker"}
	for _, tc := range []struct {
		name, file string
		want       *Event
		head       string
	}{
		{"pull_request", "pull_request", &Event{
			Name: "pull_request", Repository: octo,
			PullRequest: &PullRequest{Number: 7, HeadSHA: headSHA, HeadRef: "feature", HeadRepo: octo, BaseRef: "main", BaseRepo: octo},
		}, headSHA},
		{"push", "push", &Event{
			Name: "push", Repository: octo,
			Push: &Push{Ref: "refs/heads/main", Before: "2222222222222222222222222222222222222222", After: headSHA},
		}, headSHA},
		{"workflow_run", "workflow_run", &Event{
			Name: "workflow_run", Repository: octo,
			WorkflowRun: &WorkflowRun{
				ID: 9000000001, RunAttempt: 1, Event: "pull_request", Conclusion: "failure",
				HeadSHA: headSHA, HeadBranch: "feature", HeadRepository: octo, Repository: octo,
				PullRequests: []RunPullRequest{{Number: 7, HeadSHA: headSHA, HeadRef: "feature", BaseRef: "main", BaseRepoID: 100}},
			},
		}, headSHA},
		{"workflow_run", "workflow_run_fork", &Event{
			Name: "workflow_run", Repository: octo,
			WorkflowRun: &WorkflowRun{
				ID: 9000000002, RunAttempt: 2, Event: "pull_request", Conclusion: "failure",
				HeadSHA: forkHeadSHA, HeadBranch: "patch-1", HeadRepository: fork, Repository: octo,
				PullRequests: []RunPullRequest{},
			},
		}, forkHeadSHA},
		{"issue_comment", "pull_request", &Event{Name: "issue_comment", Repository: octo}, ""},
	} {
		t.Run(tc.file+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			ev := readTestEvent(t, tc.name, tc.file)
			if diff := cmp.Diff(tc.want, ev); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
			if got := ev.HeadSHA(); got != tc.head {
				t.Errorf("HeadSHA = %q, want %q", got, tc.head)
			}
		})
	}
}

func TestParseEventRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, event, payload, want string
	}{
		{"not JSON", "push", "{", "decoding the push event"},
		{"pull_request without one", "pull_request", `{"action":"opened"}`, "no pull_request"},
		{"pull_request without head sha", "pull_request", `{"pull_request":{"number":3}}`, "no pull_request"},
		{"workflow_run without id", "workflow_run", `{"workflow_run":{"head_sha":"x"}}`, "no workflow_run"},
		{"push without after", "push", `{"ref":"refs/heads/main"}`, "no after sha"},
		{"too large", "push", `{"ref":"` + strings.Repeat("a", MaxEventBytes) + `"}`, "exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseEvent(tc.event, strings.NewReader(tc.payload))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestPullRequestNumberFromEvent(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t) // any request fails: the event alone answers
	c := testClient(t, f)
	for _, tc := range []struct {
		name, file string
		want       int
	}{
		{"pull_request", "pull_request", 7},
		{"push", "push", 0},
		{"workflow_run", "workflow_run", 7},
	} {
		got, err := c.PullRequestNumber(context.Background(), readTestEvent(t, tc.name, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got != tc.want {
			t.Errorf("%s: PR %d, want %d", tc.file, got, tc.want)
		}
	}
	if reqs := f.requests(); len(reqs) != 0 {
		t.Errorf("requests %v, want none", reqs)
	}
}

// workflow_run.pull_requests may list pull requests of other repositories;
// those are not ours, and a push's run has no pull request to comment on.
func TestPullRequestNumberWorkflowRunFilters(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /repos/octo/repo/pulls", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, []any{})
	})
	c := testClient(t, f)

	ev := readTestEvent(t, "workflow_run", "workflow_run")
	ev.WorkflowRun.PullRequests = []RunPullRequest{
		{Number: 2, HeadSHA: headSHA, BaseRepoID: 999},
		{Number: 9, HeadSHA: "5555555555555555555555555555555555555555", BaseRepoID: 100},
		{Number: 8, HeadSHA: headSHA, BaseRepoID: 100},
	}
	if got, err := c.PullRequestNumber(context.Background(), ev); err != nil || got != 8 {
		t.Errorf("PR %d, %v; want 8 (into this repository, at the run's head)", got, err)
	}

	ev.WorkflowRun.PullRequests = []RunPullRequest{{Number: 2, HeadSHA: headSHA, BaseRepoID: 999}}
	if got, err := c.PullRequestNumber(context.Background(), ev); err != nil || got != 0 {
		t.Errorf("PR %d, %v; want none (only another repository's pull request listed)", got, err)
	}

	ev = readTestEvent(t, "workflow_run", "workflow_run")
	ev.WorkflowRun.Event = "push"
	if got, err := c.PullRequestNumber(context.Background(), ev); err != nil || got != 0 {
		t.Errorf("PR %d, %v; want none for a push's run", got, err)
	}
}

// A fork's pull request is not in workflow_run.pull_requests: it is found by
// listing the open pull requests from <fork owner>:<branch>, keeping the one
// whose head is the run's head commit.
func TestPullRequestNumberFork(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		pages [][]any
		want  int
	}{
		{"head matches", [][]any{{pull(12, forkHeadSHA)}}, 12},
		{"found on the second page", [][]any{{pull(3, "9999999999999999999999999999999999999999")}, {pull(14, forkHeadSHA)}}, 14},
		{"wrong sha: no pull request", [][]any{{pull(12, "9999999999999999999999999999999999999999")}}, 0},
		{"nothing open", [][]any{{}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t)
			f.mux.HandleFunc("GET /repos/octo/repo/pulls", func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				if q.Get("head") != "forker:patch-1" || q.Get("state") != "open" || q.Get("per_page") != "100" {
					t.Errorf("query %q, want head=forker:patch-1, state=open, per_page=100", r.URL.RawQuery)
				}
				page := 1
				if p := q.Get("page"); p == "2" {
					page = 2
				}
				if page < len(tc.pages) {
					w.Header().Set("Link", `<`+f.URL+`/repos/octo/repo/pulls?page=2>; rel="next"`)
				}
				writeJSON(w, http.StatusOK, tc.pages[page-1])
			})
			got, err := testClient(t, f).PullRequestNumber(context.Background(), readTestEvent(t, "workflow_run", "workflow_run_fork"))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("PR %d, want %d", got, tc.want)
			}
			if n := len(f.requests()); n != len(tc.pages) {
				t.Errorf("%d requests, want %d", n, len(tc.pages))
			}
		})
	}
}

func TestPullRequestNumberForkNotPermitted(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.mux.HandleFunc("GET /repos/octo/repo/pulls", forbidden)
	_, err := testClient(t, f).PullRequestNumber(context.Background(), readTestEvent(t, "workflow_run", "workflow_run_fork"))
	if !isNotPermitted(err) {
		t.Fatalf("err = %v, want a *NotPermittedError", err)
	}
}

func TestPullRequestNumberOtherRepository(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	c, err := NewClient(Env{APIURL: f.URL, Repository: "someone/else", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PullRequestNumber(context.Background(), readTestEvent(t, "pull_request", "pull_request")); err == nil {
		t.Fatal("a pull request into another repository was accepted")
	}
}

// pull is a pull request as GET /pulls lists it.
func pull(number int, sha string) map[string]any {
	return map[string]any{"number": number, "state": "open", "head": map[string]any{"sha": sha, "ref": "patch-1"}}
}
