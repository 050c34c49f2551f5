package docker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/google/go-cmp/cmp"
)

const (
	hexA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hexB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func inspectResponse(id string, repoDigests []string, env []string, volumes ...string) image.InspectResponse {
	vols := map[string]struct{}{}
	for _, v := range volumes {
		vols[v] = struct{}{}
	}
	// Decoded from the engine's JSON, as the client does.
	raw, err := json.Marshal(map[string]any{
		"Id":          id,
		"RepoDigests": repoDigests,
		"Config":      map[string]any{"Env": env, "Volumes": vols},
	})
	if err != nil {
		panic(err)
	}
	var resp image.InspectResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		panic(err)
	}
	return resp
}

func TestCheckImage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ref     string
		resp    image.InspectResponse
		want    imageInfo
		wantErr string
	}{
		{
			name: "ID pin",
			ref:  "sha256:" + hexA,
			resp: inspectResponse("sha256:"+hexA, nil, []string{"PATH=/bin"}, "/data/", "/cache"),
			want: imageInfo{Ref: "sha256:" + hexA, ID: "sha256:" + hexA, Env: []string{"PATH=/bin"}, Volumes: []string{"/cache", "/data"}},
		},
		{
			name:    "ID mismatch names both",
			ref:     "sha256:" + hexA,
			resp:    inspectResponse("sha256:"+hexB, nil, nil),
			wantErr: "image sha256:" + hexA + " does not match its pin: the engine's image has ID sha256:" + hexB,
		},
		{
			name: "ID pin records a repo digest when there is one",
			ref:  "sha256:" + hexA,
			resp: inspectResponse("sha256:"+hexA, []string{"python@sha256:" + hexB}, nil),
			want: imageInfo{Ref: "sha256:" + hexA, ID: "sha256:" + hexA, RepoDigest: "python@sha256:" + hexB},
		},
		{
			name: "registry digest, tag ignored, familiar name matches normalized",
			ref:  "docker.io/library/python:3.12-slim@sha256:" + hexB,
			resp: inspectResponse("sha256:"+hexA, []string{"other@sha256:" + hexB, "python@sha256:" + hexB}, nil),
			want: imageInfo{Ref: "docker.io/library/python:3.12-slim@sha256:" + hexB, ID: "sha256:" + hexA, RepoDigest: "python@sha256:" + hexB},
		},
		{
			name: "local registry digest",
			ref:  "127.0.0.1:5000/behaves/busybox@sha256:" + hexB,
			resp: inspectResponse("sha256:"+hexA, []string{"127.0.0.1:5000/behaves/busybox@sha256:" + hexB}, nil),
			want: imageInfo{Ref: "127.0.0.1:5000/behaves/busybox@sha256:" + hexB, ID: "sha256:" + hexA, RepoDigest: "127.0.0.1:5000/behaves/busybox@sha256:" + hexB},
		},
		{
			name:    "registry digest of another repository",
			ref:     "python@sha256:" + hexB,
			resp:    inspectResponse("sha256:"+hexA, []string{"other@sha256:" + hexB}, nil),
			wantErr: "image python@sha256:" + hexB + " does not match its pin: the engine's image sha256:" + hexA + " has repo digests [other@sha256:" + hexB + "]",
		},
		{
			name:    "unpinned",
			ref:     "python:3.12",
			wantErr: `image "python:3.12" is not pinned`,
		},
		{
			name:    "short ID",
			ref:     "sha256:abc",
			wantErr: "not a full image ID",
		},
		{
			name:    "VOLUME inside /program",
			ref:     "sha256:" + hexA,
			resp:    inspectResponse("sha256:"+hexA, nil, nil, "/program/cache"),
			wantErr: "inside /program",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := checkImage(tt.ref, tt.resp)
			if tt.wantErr != "" {
				var ie *imageError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ie) {
					t.Fatalf("err = %v, want an image error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("info (-want +got):\n%s", diff)
			}
		})
	}
}

// fakeEngine implements engine with the methods a test sets; any other
// call panics (the embedded interface is nil).
type fakeEngine struct {
	dockerAPI
	imageInspect func(ctx context.Context, ref string) (image.InspectResponse, error)
}

func (f *fakeEngine) ImageInspect(ctx context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	return f.imageInspect(ctx, ref)
}

func testSandbox(cli dockerAPI) *Sandbox {
	return &Sandbox{
		cli:    cli,
		opt:    Options{RunID: "test", EngineTimeout: 5 * time.Second, Grace: time.Second, CleanupTimeout: time.Second},
		prefix: "behaves-test-",
		images: map[string]*imageEntry{},
	}
}

func TestImageCheckIsSharedAndCached(t *testing.T) {
	t.Parallel()
	ref := "sha256:" + hexA
	var calls atomic.Int32
	release := make(chan struct{})
	s := testSandbox(&fakeEngine{imageInspect: func(ctx context.Context, r string) (image.InspectResponse, error) {
		calls.Add(1)
		<-release
		return inspectResponse(ref, nil, nil), nil
	}})

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if info, err := s.image(context.Background(), ref); err != nil || info.ID != ref {
				t.Errorf("image() = %+v, %v", info, err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let the callers pile up on one entry
	close(release)
	wg.Wait()
	if _, err := s.image(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("ImageInspect called %d times, want 1", n)
	}
}

func TestImageCheckMissingAndTransient(t *testing.T) {
	t.Parallel()
	missing := "sha256:" + hexA
	flaky := "sha256:" + hexB
	var missingCalls, flakyCalls atomic.Int32
	s := testSandbox(&fakeEngine{imageInspect: func(ctx context.Context, r string) (image.InspectResponse, error) {
		if r == missing {
			missingCalls.Add(1)
			return image.InspectResponse{}, cerrdefs.ErrNotFound.WithMessage("No such image")
		}
		if flakyCalls.Add(1) == 1 {
			return image.InspectResponse{}, errors.New("connection reset")
		}
		return inspectResponse(flaky, nil, nil), nil
	}})
	for range 2 {
		_, err := s.image(context.Background(), missing)
		if err == nil || err.Error() != "image not present: "+missing+" is a local image ID, which cannot be pulled: build or load the image on this engine, or give the profile another with --image PROFILE=REF" {
			t.Fatalf("missing image: err = %v", err)
		}
	}
	if n := missingCalls.Load(); n != 1 {
		t.Errorf("a missing image was inspected %d times, want 1 (definitive answers are cached)", n)
	}
	if _, err := s.image(context.Background(), flaky); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("flaky first call: err = %v", err)
	}
	if _, err := s.image(context.Background(), flaky); err != nil {
		t.Fatalf("a transient failure was cached: %v", err)
	}
}

func TestImageCheckCallerCancellation(t *testing.T) {
	t.Parallel()
	ref := "sha256:" + hexA
	release := make(chan struct{})
	s := testSandbox(&fakeEngine{imageInspect: func(ctx context.Context, r string) (image.InspectResponse, error) {
		<-release
		return inspectResponse(ref, nil, nil), ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.image(ctx, ref); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: err = %v", err)
	}
	// The shared inspect was not cancelled with the first caller.
	close(release)
	if _, err := s.image(context.Background(), ref); err != nil {
		t.Fatalf("second caller: %v", err)
	}
}
