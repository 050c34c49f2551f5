package kube

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestSplitLogsCheck: New asks the API server for one log stream of a pod
// that does not exist (after making sure of the namespace and its policy),
// and refuses a cluster whose API server refuses the stream parameter
// (PodLogsQuerySplitStreams off), saying what to turn on; NotFound, what
// a server with the gate answers, passes. The fake server checks what it
// receives.
func TestSplitLogsCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		logStatus int
		logReason string
		wantErr   string
	}{
		{"gate on", http.StatusNotFound, "NotFound", ""},
		{"gate off", http.StatusUnprocessableEntity, "Invalid", "PodLogsQuerySplitStreams"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sawProbe bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				status := func(code int, reason string) {
					w.WriteHeader(code)
					json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": reason, "code": code, "message": reason})
				}
				switch {
				case r.Method == http.MethodGet && r.URL.Path == "/api/v1/namespaces/behaves":
					json.NewEncoder(w).Encode(map[string]any{"kind": "Namespace", "apiVersion": "v1", "metadata": map[string]any{"name": "behaves"}})
				case r.Method == http.MethodPost && r.URL.Path == "/apis/networking.k8s.io/v1/namespaces/behaves/networkpolicies":
					status(http.StatusConflict, "AlreadyExists")
				case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/behaves/pods/behaves-probe-") && strings.HasSuffix(r.URL.Path, "/log"):
					if got := r.URL.Query().Get("stream"); got != "Stderr" {
						t.Errorf("the probe asked for stream %q, want Stderr", got)
					}
					sawProbe = true
					status(tc.logStatus, tc.logReason)
				default:
					t.Errorf("unexpected request %s %s", r.Method, r.URL)
					status(http.StatusNotFound, "NotFound")
				}
			}))
			defer srv.Close()
			api, err := newClient(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = newSandbox(context.Background(), api, Options{RunID: "0123456789abcdef"})
			switch {
			case !sawProbe:
				t.Errorf("no probe request reached the server (err %v)", err)
			case tc.wantErr == "" && err != nil:
				t.Errorf("New: %v, want success", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("New: %v, want an error naming %s", err, tc.wantErr)
			}
		})
	}
}
