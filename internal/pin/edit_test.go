package pin

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

var (
	digestA = "sha256:" + strings.Repeat("a", 64)
	digestB = "sha256:" + strings.Repeat("b", 64)
)

// pinAll pins every Tagged image of data to digest, as Write does after a
// Plan that found each Missing or Stale.
func pinAll(t *testing.T, data, digest string) (string, error) {
	t.Helper()
	images, err := Find([]byte(data))
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	var outcomes []Outcome
	for _, im := range images {
		o := Outcome{Image: im, Status: Skipped}
		if im.Kind == Tagged {
			o.Status, o.Now = Missing, digest
			if im.Digest != "" {
				o.Status = Stale
			}
		}
		outcomes = append(outcomes, o)
	}
	out, err := Write([]byte(data), outcomes)
	return string(out), err
}

// TestWriteKeepsEveryOtherByte: only the image scalars change, in their
// own quoting, whatever the YAML around them: every byte before and after
// each is the original's (the wants are the inputs with the values alone
// replaced).
func TestWriteKeepsEveryOtherByte(t *testing.T) {
	t.Parallel()
	id := "sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct{ name, in, want string }{
		{"plain, with comments around",
			"# head\nversion: 1\nprofiles:\n  # above\n  py:   # after the key\n    image: python:3.12-slim   # why this one\n    command: [python3]\n# foot\n",
			"# head\nversion: 1\nprofiles:\n  # above\n  py:   # after the key\n    image: python:3.12-slim@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa   # why this one\n    command: [python3]\n# foot\n"},
		{"double-quoted",
			"profiles:\n  py:\n    image: \"python:3.12\"\n",
			"profiles:\n  py:\n    image: \"python:3.12@" + digestA + "\"\n"},
		{"single-quoted",
			"profiles:\n  py:\n    image: 'python:3.12'\n",
			"profiles:\n  py:\n    image: 'python:3.12@" + digestA + "'\n"},
		{"flow mappings, image first and last",
			"profiles:\n  a: {image: ghcr.io/o/a:v1, command: [sh]}\n  b: {command: [sh], image: \"127.0.0.1:5000/b:v2\"}\n",
			"profiles:\n  a: {image: ghcr.io/o/a:v1@" + digestA + ", command: [sh]}\n  b: {command: [sh], image: \"127.0.0.1:5000/b:v2@" + digestA + "\"}\n"},
		{"a stale pin is replaced",
			"profiles:\n  a:\n    image: \"busybox:1.36@" + digestB + "\"  # keep\n",
			"profiles:\n  a:\n    image: \"busybox:1.36@" + digestA + "\"  # keep\n"},
		{"a tag (!!str) before the value",
			"profiles:\n  a:\n    image: !!str \"busybox:1.36\"\n",
			"profiles:\n  a:\n    image: !!str \"busybox:1.36@" + digestA + "\"\n"},
		{"CRLF line ends",
			"profiles:\r\n  a:\r\n    image: busybox:1.36 # c\r\n    command: [sh]\r\n",
			"profiles:\r\n  a:\r\n    image: busybox:1.36@" + digestA + " # c\r\n    command: [sh]\r\n"},
		{"a byte order mark and multibyte characters before the value (columns count characters)",
			"\ufeffprofiles:\n  é€𝄞: {image: busybox:1.36}\n",
			"\ufeffprofiles:\n  é€𝄞: {image: busybox:1.36@" + digestA + "}\n"},
		{"the build stage's image; an image ID is left alone",
			"profiles:\n  c:\n    image: " + id + "\n    build:\n      image: gcc:14   # the compiler\n      command: [gcc]\n",
			"profiles:\n  c:\n    image: " + id + "\n    build:\n      image: gcc:14@" + digestA + "   # the compiler\n      command: [gcc]\n"},
		{"init's TODO comment goes, with the blanks before it",
			"profiles:\n  py:\n    image: \"python:3.13-slim\"  # TODO: pin this image: behaves pin --allow-registry docker.io\n    command: [python3]\n",
			"profiles:\n  py:\n    image: \"python:3.13-slim@" + digestA + "\"\n    command: [python3]\n"},
		{"a double-quoted value over two lines becomes one",
			"profiles:\n  a:\n    image: \"busybox:\\\n      1.36\" # c\n    command: [sh]\n",
			"profiles:\n  a:\n    image: \"busybox:1.36@" + digestA + "\" # c\n    command: [sh]\n"},
		{"any other TODO stays",
			"profiles:\n  py:\n    image: python:3.13  # TODO: try 3.14\n",
			"profiles:\n  py:\n    image: python:3.13@" + digestA + "  # TODO: try 3.14\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := pinAll(t, tc.in, digestA)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if got != tc.want {
				t.Errorf("Write:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestWriteRefuses: what cannot be rewritten in place is an error, and
// nothing is returned.
func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"a literal block scalar", "profiles:\n  a:\n    image: |-\n      busybox:1.36\n", "block scalar"},
		{"a folded block scalar", "profiles:\n  a:\n    build:\n      image: >-\n        busybox:1.36\n", "block scalar"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := pinAll(t, tc.in, digestA)
			if err == nil || !strings.Contains(err.Error(), tc.want) || got != "" {
				t.Errorf("Write: %q, %v; want no text and an error with %q", got, err, tc.want)
			}
		})
	}
}

// TestFind classifies each image as pin will treat it.
func TestFind(t *testing.T) {
	t.Parallel()
	id := "sha256:" + strings.Repeat("1", 64)
	spec := `version: 1
profiles:
  tag: {image: python:3.12}
  pinned: {image: "ghcr.io/o/i:v1@` + digestA + `"}
  id: {image: "` + id + `"}
  digest: {image: "python@` + digestA + `"}
  notag: {image: python}
  number: {image: 3}
  bad: {image: "Not A Ref:1"}
  c:
    image: "` + id + `"
    build: {image: "127.0.0.1:5000/gcc:14", command: [gcc]}
  nobuild: {build: [x]}
  list: [x]
programs: []
`
	images, err := Find([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		where    string
		kind     Kind
		registry string
		tagged   string
		digest   string
		line     int
	}
	want := []row{
		{"profiles.tag.image", Tagged, "docker.io", "python:3.12", "", 3},
		{"profiles.pinned.image", Tagged, "ghcr.io", "ghcr.io/o/i:v1", digestA, 4},
		{"profiles.id.image", ByID, "", "", "", 5},
		{"profiles.digest.image", ByDigest, "", "", "", 6},
		{"profiles.notag.image", Invalid, "", "", "", 7},
		{"profiles.number.image", Invalid, "", "", "", 8},
		{"profiles.bad.image", Invalid, "", "", "", 9},
		{"profiles.c.image", ByID, "", "", "", 11},
		{"profiles.c.build.image", Tagged, "127.0.0.1:5000", "127.0.0.1:5000/gcc:14", "", 12},
	}
	if len(images) != len(want) {
		t.Fatalf("Find: %d images, want %d: %+v", len(images), len(want), images)
	}
	for i, im := range images {
		got := row{im.Where(), im.Kind, im.Registry, im.Tagged, im.Digest, im.Line}
		if got != want[i] {
			t.Errorf("image %d: %+v, want %+v", i, got, want[i])
		}
		if (im.Kind == Invalid) != (im.Problem != "") {
			t.Errorf("%s: kind %d with problem %q", im.Where(), im.Kind, im.Problem)
		}
	}
	for _, bad := range []string{"a: [", "a: 1\n---\nb: 2\n"} {
		if _, err := Find([]byte(bad)); err == nil {
			t.Errorf("Find(%q): no error", bad)
		}
	}
}

// TestPlanAsksNothingWhenAnImageIsRefused: an image pin cannot follow, or
// one in a registry not allowed, stops every request: the image in the
// allowed registry (a loopback port nothing listens on, which would fail
// if asked) is not asked.
func TestPlanAsksNothingWhenAnImageIsRefused(t *testing.T) {
	t.Parallel()
	spec := "profiles:\n  a: {image: \"127.0.0.1:1/x:1\"}\n  b: {image: python:3.12}\n  c: {image: python}\n"
	r := &Resolver{Registries: []string{"127.0.0.1:1"}}
	out, err := Plan(context.Background(), []byte(spec), r)
	if err != nil {
		t.Fatal(err)
	}
	want := []Status{NotAsked, Refused, Refused}
	for i, o := range out {
		if o.Status != want[i] {
			t.Errorf("%s: status %d, want %d (%v)", o.Where(), o.Status, want[i], o.Err)
		}
	}
	var na *NotAllowedError
	if !errors.As(out[1].Err, &na) || na.Registry != "docker.io" || !strings.Contains(na.Error(), "--allow-registry docker.io") {
		t.Errorf("b: %v, want a NotAllowedError naming docker.io and the flag", out[1].Err)
	}

	// Without the refused ones, the loopback registry is asked: nothing
	// listens there, so it is unreachable.
	out, err = Plan(context.Background(), []byte("profiles:\n  a: {image: \"127.0.0.1:1/x:1\"}\n"), r)
	if err != nil {
		t.Fatal(err)
	}
	var ue *UnreachableError
	if len(out) != 1 || out[0].Status != Failed || !errors.As(out[0].Err, &ue) || ue.Registry != "127.0.0.1:1" {
		t.Errorf("Plan: %+v, want one Failed image with an UnreachableError naming 127.0.0.1:1", out)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestPlainHTTPOnlyToLoopback: go-containerregistry would fall back to
// plain HTTP for a private address; the transport refuses it before any
// connection, and lets HTTPS, and HTTP to a loopback address, through.
func TestPlainHTTPOnlyToLoopback(t *testing.T) {
	t.Parallel()
	errBase := errors.New("reached the base transport")
	tr := plainOnlyToLoopback{base: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errBase })}
	for _, tc := range []struct {
		url  string
		base bool
	}{
		{"http://10.1.2.3:5000/v2/", false},
		{"http://192.168.0.1/v2/", false},
		{"http://registry.example/v2/", false},
		{"https://10.1.2.3:5000/v2/", true},
		{"http://127.0.0.1:5000/v2/", true},
		{"http://127.1.2.3:5000/v2/", true},
		{"http://[::1]:5000/v2/", true},
		{"http://localhost:5000/v2/", true},
	} {
		req, err := http.NewRequest(http.MethodGet, tc.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.RoundTrip(req)
		if got := errors.Is(err, errBase); got != tc.base || !got && !errors.Is(err, errPlainHTTP) {
			t.Errorf("%s: %v; want it passed on: %v", tc.url, err, tc.base)
		}
	}
}

// FuzzWrite: any spec text, its tagged images pinned, never panics, and
// whatever Write returns reads back as the original with only the images
// changed (Write checks it itself; here, that the new values are in it).
func FuzzWrite(f *testing.F) {
	f.Add("profiles:\n  a:\n    image: busybox:1.36 # c\n")
	f.Add("profiles:\n  a: {image: 'python:3.12', build: {image: \"gcc:14\"}}\n")
	f.Add("\ufeffprofiles:\r\n  é: {image: !!str busybox:1}\r\n")
	f.Add("profiles:\n  a:\n    image: \"busybox:1\"  # TODO: pin this image: x\n")
	f.Fuzz(func(t *testing.T, spec string) {
		images, err := Find([]byte(spec))
		if err != nil {
			return
		}
		got, err := pinAll(t, spec, digestA)
		if err != nil {
			return
		}
		for _, im := range images {
			if im.Kind == Tagged && !strings.Contains(got, im.Tagged+"@"+digestA) {
				t.Errorf("%s: %q is not in the result %q", im.Where(), im.Tagged+"@"+digestA, got)
			}
		}
	})
}
