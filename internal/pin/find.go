package pin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/distribution/reference"
	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/spec"
)

// Kind says what pin can do with an image as the spec writes it.
type Kind int

const (
	// Tagged is name:tag or name:tag@sha256:…: pin follows the tag.
	Tagged Kind = iota + 1
	// ByID is a local image ID (sha256:…): no registry to ask; left alone.
	ByID
	// ByDigest is name@sha256:… without a tag: there is no tag to follow;
	// left alone.
	ByDigest
	// Invalid is anything else (no tag, not a string, not a reference):
	// Image.Problem says why.
	Invalid
)

// Image is one image scalar of a spec: a profile's image or its build
// stage's.
type Image struct {
	// Profile is the profile's name as the spec writes it; Build says the
	// image is the build stage's (profiles.<name>.build.image).
	Profile string
	Build   bool
	// Line and Column are the value's position (1-based; the column in
	// characters, as yaml.v3 counts them).
	Line, Column int
	// Ref is the value as written.
	Ref  string
	Kind Kind
	// Problem says why an Invalid image cannot be pinned.
	Problem string
	// For a Tagged image: Tagged is the reference up to its digest
	// (name:tag, as written), Digest the digest written after it ("" when
	// unpinned), Registry the registry Docker would contact, in
	// spec.NormalizeRegistry's form.
	Tagged, Digest, Registry string

	node *yaml.Node
}

// Where names the image's key: profiles.<name>.image or
// profiles.<name>.build.image (the name as written: escape it to print).
func (im Image) Where() string {
	if im.Build {
		return "profiles." + im.Profile + ".build.image"
	}
	return "profiles." + im.Profile + ".image"
}

// Find returns every profile and build image of the spec data, in the
// order the file writes them. An error means the file is not YAML pin can
// read (a syntax error, more than one document, more than
// spec.MaxSpecSize bytes); a profile or build stage that is not a mapping
// is passed over (behaves validate names it).
func Find(data []byte) ([]Image, error) {
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	var out []Image
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, nil
	}
	profiles := get(root, "profiles")
	if profiles == nil || profiles.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(profiles.Content); i += 2 {
		name, prof := profiles.Content[i].Value, profiles.Content[i+1]
		if prof.Kind != yaml.MappingNode {
			continue
		}
		if n := get(prof, "image"); n != nil {
			out = append(out, classify(name, false, n))
		}
		if b := get(prof, "build"); b != nil && b.Kind == yaml.MappingNode {
			if n := get(b, "image"); n != nil {
				out = append(out, classify(name, true, n))
			}
		}
	}
	return out, nil
}

// parse decodes the spec's one document; nil for an empty file.
func parse(data []byte) (root *yaml.Node, err error) {
	if int64(len(data)) > spec.MaxSpecSize {
		return nil, fmt.Errorf("the spec is %d bytes, above the %d-byte cap", len(data), spec.MaxSpecSize)
	}
	defer func() {
		// yaml.v3 recovers its own errors; anything else is a bug in it
		// that must not take the command down.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("the YAML parser failed on this file (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the spec's YAML: %w (behaves validate says more)", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("the spec is more than one YAML document (behaves validate says more)")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// classify says what an image value is.
func classify(profile string, build bool, n *yaml.Node) Image {
	im := Image{Profile: profile, Build: build, Line: n.Line, Column: n.Column, Ref: n.Value, node: n}
	invalid := func(format string, args ...any) Image {
		im.Kind, im.Problem = Invalid, fmt.Sprintf(format, args...)
		return im
	}
	switch {
	case n.Kind == yaml.AliasNode || n.Anchor != "":
		im.Ref = ""
		return invalid("an alias or anchor, which a spec may not use: write the image out")
	case n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str":
		im.Ref = ""
		return invalid("not a string: write the image as name:tag")
	case strings.HasPrefix(n.Value, "sha256:"):
		im.Kind = ByID
		return im
	}
	ref, err := reference.ParseNormalizedNamed(n.Value)
	if err != nil {
		return invalid("not an image reference (%v): write it as name:tag", err)
	}
	_, tagged := ref.(reference.Tagged)
	_, digested := ref.(reference.Digested)
	switch {
	case !tagged && digested:
		im.Kind = ByDigest
		return im
	case !tagged:
		return invalid("has no tag for pin to follow: write name:tag (the tag is kept, its digest added)")
	}
	im.Kind = Tagged
	im.Tagged, im.Digest = n.Value, ""
	if at := strings.LastIndexByte(n.Value, '@'); at >= 0 {
		im.Tagged, im.Digest = n.Value[:at], n.Value[at+1:]
	}
	im.Registry = strings.ToLower(reference.Domain(ref))
	return im
}
