package spec

import (
	"strings"
	"testing"
)

func TestNormalizeRegistry(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want, err string }{
		{in: "docker.io", want: "docker.io"},
		{in: "index.docker.io", want: "docker.io"},
		{in: "GHCR.io", want: "ghcr.io"},
		{in: "127.0.0.1:5000", want: "127.0.0.1:5000"},
		{in: "localhost", want: "localhost"},
		{in: "localhost:5000", want: "localhost:5000"},
		{in: "[::1]:5000", want: "[::1]:5000"},
		{in: "", err: "not a host"},
		{in: "https://ghcr.io", err: "not a host"},
		{in: "ghcr.io/owner", err: "not a host"},
		{in: "myregistry", err: "Docker would read it as a repository on docker.io"},
		{in: "ghcr.io:port", err: "not a host"},
	} {
		got, err := NormalizeRegistry(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("NormalizeRegistry(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("NormalizeRegistry(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
