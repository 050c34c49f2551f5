package docker

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"

	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// pullPin is a registry-digest pin of the fake's image.
var pullPin = "127.0.0.1:5000/behaves/sh@sha256:" + strings.Repeat("d", 64)

// pullStream answers an image pull with 200 and the progress lines given,
// as the engine does, and records the query it was asked.
func pullStream(query *atomic.Value, lines ...string) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		query.Store(c.R.URL.Query())
		c.W.Header().Set("Content-Type", "application/json")
		c.W.WriteHeader(http.StatusOK)
		for _, l := range lines {
			c.W.Write([]byte(l + "\r\n"))
		}
		return true
	}
}

// afterPull answers image inspects with 404 until pulled is set, then with
// img: an image that a pull makes present.
func afterPull(pulled *atomic.Bool, img image.InspectResponse) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		if !pulled.Load() {
			writeError(c.W, http.StatusNotFound, "No such image: "+c.R.URL.Path)
			return true
		}
		writeJSON(c.W, http.StatusOK, img)
		return true
	}
}

// TestPullImage runs the pull phase against the fake engine: a pull by the
// pinned digest, an error inside a successful response's stream, a pulled
// image without the pinned digest, a pull that outlives its timeout, and the
// images that are not pulled at all (present ones, a local ID). A failure
// becomes the reason of the image's cases at scoring, which never pulls.
func TestPullImage(t *testing.T) {
	t.Parallel()
	progress := []string{
		`{"status":"Pulling from behaves/sh","id":"sha256:dddd"}`,
		`{"status":"Downloading","progressDetail":{"current":1,"total":2},"id":"abc"}`,
	}
	pinned := image.InspectResponse{ID: fakeImageID, RepoDigests: []string{pullPin}}
	tests := []struct {
		name string
		pin  string
		// present: the engine has the image before the pull.
		present bool
		stream  []string
		hang    bool
		after   image.InspectResponse // what an inspect answers after the pull
		status  runner.PullStatus
		err     string // "" for success; else the PullImage error and the cases' reason (after "image not present: ")
		pulls   int
	}{
		{name: "pulled", pin: pullPin, stream: append(progress, `{"status":"Digest: sha256:dddd"}`), after: pinned, status: runner.PullPulled, pulls: 1},
		{name: "present", pin: pullPin, present: true, status: runner.PullPresent},
		{name: "present ID", pin: fakeImageID, present: true, status: runner.PullPresent},
		{name: "error in the stream", pin: pullPin, stream: append(progress, `{"errorDetail":{"message":"manifest unknown: manifest unknown"},"error":"manifest unknown: manifest unknown"}`),
			err: "pulling " + pullPin + " failed: manifest unknown: manifest unknown", pulls: 1},
		{name: "legacy error field", pin: pullPin, stream: []string{`{"error":"toomanyrequests"}`},
			err: "pulling " + pullPin + " failed: toomanyrequests", pulls: 1},
		{name: "long error", pin: pullPin, stream: []string{`{"error":"` + strings.Repeat("é", maxPullError) + `"}`},
			err: "pulling " + pullPin + " failed: " + strings.Repeat("é", maxPullError/2) + "… (cut)", pulls: 1},
		{name: "not JSON", pin: pullPin, stream: []string{`<html>`},
			err: "pulling " + pullPin + " failed: the engine's progress stream is not JSON", pulls: 1},
		{name: "another digest", pin: pullPin, stream: progress, after: image.InspectResponse{ID: fakeImageID, RepoDigests: []string{"127.0.0.1:5000/behaves/sh@sha256:" + strings.Repeat("c", 64)}},
			err: "pulling " + pullPin + " failed: the pulled image " + fakeImageID + " has repo digests [127.0.0.1:5000/behaves/sh@sha256:cccc", pulls: 1},
		{name: "timeout", pin: pullPin, hang: true,
			err: "pulling " + pullPin + " failed: it did not finish within the pull timeout 300ms", pulls: 1},
		{name: "absent ID", pin: fakeImageID,
			err: fakeImageID + " is a local image ID, which names no registry to pull from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newFakeDaemon(t)
			var pulled atomic.Bool
			pulled.Store(tt.present)
			after := tt.after
			if tt.present {
				after = pinned
			}
			d.fault("image-inspect", afterPull(&pulled, after))
			var query atomic.Value
			switch {
			case tt.hang:
				d.fault("image-pull", hang())
			case tt.stream != nil:
				stream := pullStream(&query, tt.stream...)
				d.fault("image-pull", func(d *fakeDaemon, c *fakeCall) bool {
					stream(d, c)
					pulled.Store(tt.after.ID != "")
					return true
				})
			}
			sb := d.sandbox(t, Options{})
			status, err := sb.PullImage(context.Background(), tt.pin, 300*time.Millisecond)
			if tt.err == "" {
				if err != nil || status != tt.status {
					t.Fatalf("PullImage: %q, %v; want %q", status, err, tt.status)
				}
			} else if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Fatalf("PullImage: %q, %v; want an error %q…", status, err, tt.err)
			}
			if n := d.count("image-pull"); n != tt.pulls {
				t.Errorf("%d pulls, want %d", n, tt.pulls)
			}
			if q, ok := query.Load().(url.Values); ok {
				if got := q.Get("fromImage") + "@" + q.Get("tag"); got != pullPin {
					t.Errorf("pulled %q, want the pinned digest %q", got, pullPin)
				}
			}

			// Scoring: never a pull; a failed pull is the missing image's reason.
			prof := faultProfile()
			prof.Image = tt.pin
			o := runJob(t, sb, faultJob(prof, 2), 30*time.Second)
			if n := d.count("image-pull"); n != tt.pulls {
				t.Errorf("scoring pulled: %d pulls, want the pull phase's %d", n, tt.pulls)
			}
			if tt.err == "" {
				if tt.after.ID != "" || tt.present {
					if o.verdict != verdict.True {
						t.Errorf("after a pull, want true:\n%s", o)
					}
				}
				return
			}
			if tt.after.ID != "" {
				return // the image is there, under another digest: the pin check says so
			}
			for i, c := range o.cases {
				if c.Verdict != verdict.Undetermined || !strings.HasPrefix(c.Reason, "image not present: "+tt.err) {
					t.Errorf("case %d: %s %q, want undetermined %q…", i, c.Verdict, c.Reason, "image not present: "+tt.err)
				}
			}
			if o.obs.Acquisition != runner.AcquisitionError {
				t.Errorf("acquisition %s, want error", o.obs.Acquisition)
			}
			assertNoLeftovers(t, d)
		})
	}
}

// An interrupted pull phase says so, not that the pull timed out.
func TestPullImageInterrupted(t *testing.T) {
	t.Parallel()
	d := newFakeDaemon(t)
	d.image = image.InspectResponse{}
	arrived := make(chan struct{})
	d.fault("image-pull", func(d *fakeDaemon, c *fakeCall) bool {
		close(arrived)
		return hang()(d, c)
	})
	sb := d.sandbox(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := sb.PullImage(ctx, pullPin, time.Hour)
	if err == nil || !strings.Contains(err.Error(), "context canceled") || strings.Contains(err.Error(), "timeout") {
		t.Errorf("PullImage interrupted: %v; want the cancellation", err)
	}
}

func TestReadPullStream(t *testing.T) {
	t.Parallel()
	long := `{"status":"` + strings.Repeat("x", maxPullMessage) + `"}`
	for _, tt := range []struct{ name, in, err string }{
		{"empty", "", ""},
		{"progress", "{\"status\":\"a\"}\r\n{\"status\":\"b\"}\r\n", ""},
		{"no final newline", `{"status":"a"}`, ""},
		{"blank lines", "\r\n\n{\"status\":\"a\"}\n\n", ""},
		{"error", "{\"status\":\"a\"}\n{\"error\":\"e1\"}\n{\"status\":\"b\"}\n", "e1"},
		{"detail wins", `{"error":"legacy","errorDetail":{"message":"detail"}}`, "detail"},
		{"long line", long + "\n", "longer than"},
		{"not JSON", "nope\n", "not JSON"},
	} {
		err := readPullStream(strings.NewReader(tt.in))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v, want nil", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}
