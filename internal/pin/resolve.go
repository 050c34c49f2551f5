package pin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/distribution/reference"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// DefaultTimeout bounds the resolution of one image: long enough for a
// token exchange and a manifest request to a slow registry, short enough
// that a registry that never answers does not hold a scheduled job.
const DefaultTimeout = 60 * time.Second

var sha256RE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Resolver asks registries for the digest a tag points to.
type Resolver struct {
	// Registries are the registries it may ask, in spec.NormalizeRegistry's
	// form (docker.io, ghcr.io, 127.0.0.1:5000). Any other is refused
	// without a request.
	Registries []string
	// Keychain gives the credentials for a registry; nil is
	// authn.DefaultKeychain (the Docker config and its credential
	// helpers, as docker pull reads them).
	Keychain authn.Keychain
	// Timeout bounds one image's resolution (DefaultTimeout when 0).
	Timeout time.Duration
	// UserAgent is sent with every request ("" leaves the library's).
	UserAgent string
}

// NotAllowedError is the error for an image in a registry the Resolver
// may not ask.
type NotAllowedError struct {
	Ref, Registry string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("image %q is in registry %s, which pin may not ask: add --allow-registry %s to ask it", e.Ref, e.Registry, e.Registry)
}

// UnreachableError is the error for a registry that gave no HTTP answer
// (it refused the connection, timed out, spoke no HTTP, failed TLS).
type UnreachableError struct {
	Registry string
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("registry %s cannot be reached: %v", e.Registry, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Allowed reports whether the Resolver may ask registry.
func (r *Resolver) Allowed(registry string) bool {
	return slices.Contains(r.Registries, registry)
}

// Digest returns the digest (sha256:<64 hex>) of the manifest the tagged
// reference ref (name:tag; a digest after it is ignored) points to in its
// registry now: the index's digest for a multi-platform image, as the
// registry answers a HEAD of the manifest (or, when it will not say there,
// the digest of the manifest a GET returns). Its errors are a
// *NotAllowedError, an *UnreachableError, or the registry's own answer.
func (r *Resolver) Digest(ctx context.Context, ref string) (string, error) {
	tagged := ref
	if at := strings.LastIndexByte(ref, '@'); at >= 0 {
		tagged = ref[:at]
	}
	named, err := reference.ParseNormalizedNamed(tagged)
	if err != nil {
		return "", fmt.Errorf("image %q is not a reference: %w", ref, err)
	}
	if _, ok := named.(reference.Tagged); !ok {
		return "", fmt.Errorf("image %q has no tag to resolve", ref)
	}
	registry := strings.ToLower(reference.Domain(named))
	if !r.Allowed(registry) {
		return "", &NotAllowedError{Ref: ref, Registry: registry}
	}
	tag, err := name.NewTag(tagged, nameOptions(registry)...)
	if err != nil {
		return "", fmt.Errorf("image %q is not a reference: %w", ref, err)
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	keychain := r.Keychain
	if keychain == nil {
		keychain = authn.DefaultKeychain
	}
	opts := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(keychain),
		remote.WithTransport(plainOnlyToLoopback{base: baseTransport()}),
		// A refused connection is not retried; a 5xx or 429 is, briefly.
		remote.WithRetryBackoff(remote.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 2}),
	}
	if r.UserAgent != "" {
		opts = append(opts, remote.WithUserAgent(r.UserAgent))
	}
	desc, err := remote.Head(tag, opts...)
	if err != nil && !unreachable(err) && !notFound(err) {
		// Some registries answer HEAD without the digest header, or not at
		// all: the manifest's own bytes say it.
		if d, gerr := remote.Get(tag, opts...); gerr == nil {
			desc, err = &d.Descriptor, nil
		}
	}
	if err != nil {
		if unreachable(err) {
			return "", &UnreachableError{Registry: registry, Err: err}
		}
		if notFound(err) {
			return "", fmt.Errorf("registry %s has no manifest for %s (404): check the name and the tag: %w", registry, tagged, err)
		}
		return "", fmt.Errorf("registry %s: resolving %s: %w", registry, tagged, err)
	}
	digest := desc.Digest.String()
	if !sha256RE.MatchString(digest) {
		return "", fmt.Errorf("registry %s: %s has the digest %q, not sha256:<64 hex>, which a spec cannot pin", registry, tagged, digest)
	}
	return digest, nil
}

// unreachable says whether err is a failure to get any HTTP answer.
func unreachable(err error) bool {
	var te *transport.Error
	if errors.As(err, &te) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errPlainHTTP)
}

// notFound says whether the registry answered that the tag or repository
// does not exist.
func notFound(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) && te.StatusCode == http.StatusNotFound
}

// nameOptions: a loopback registry is spoken to over plain HTTP (as
// Docker's engine does by default); any other over HTTPS.
func nameOptions(registry string) []name.Option {
	if isLoopback(registry) {
		return []name.Option{name.Insecure}
	}
	return nil
}

// isLoopback says whether a registry (host or host:port) is on this
// machine: 127.0.0.0/8, ::1 or localhost.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return strings.EqualFold(host, "localhost")
}

var errPlainHTTP = errors.New("plain HTTP is spoken only to a registry on this machine (127.0.0.0/8, ::1, localhost); this one must answer HTTPS")

// plainOnlyToLoopback refuses a plain-HTTP request to anything but a
// loopback host. go-containerregistry falls back to HTTP for private
// (RFC 1918) addresses too, where Docker's engine would not, and a
// credential must not go over the network in the clear.
type plainOnlyToLoopback struct{ base http.RoundTripper }

func (t plainOnlyToLoopback) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !isLoopback(req.URL.Host) {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), errPlainHTTP)
	}
	return t.base.RoundTrip(req)
}

// baseTransport is the HTTP transport under go-containerregistry's: the
// default one, with the proxy settings of the environment, as docker pull
// has them.
func baseTransport() http.RoundTripper {
	return remote.DefaultTransport.(*http.Transport).Clone()
}
