package pin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Status is what Plan found for one image.
type Status int

const (
	// NotAsked: another image was refused, so no registry was asked.
	NotAsked Status = iota
	// Current: pinned to the digest its tag points to now.
	Current
	// Missing: name:tag with no digest yet.
	Missing
	// Stale: pinned to another digest than its tag's now.
	Stale
	// Skipped: pinned by image ID or by digest without a tag; left alone.
	Skipped
	// Refused: not a reference pin can follow, or in a registry it may not
	// ask (Outcome.Err says which).
	Refused
	// Failed: the registry could not be reached, or answered an error.
	Failed
)

// Outcome is one image and what Plan found.
type Outcome struct {
	Image
	Status Status
	// Now is the digest the image's tag points to now (Current, Missing,
	// Stale).
	Now string
	// Err says why an image was Refused or Failed.
	Err error
}

// Pinned is the reference Write puts in place of a Missing or Stale
// image: the tag as written, @, the digest now.
func (o Outcome) Pinned() string { return o.Tagged + "@" + o.Now }

// Plan finds the spec's images (Find) and asks r for the digest of each
// one written with a tag, each distinct tag once. When an image is
// Refused (invalid, or in a registry r may not ask), nothing is asked at
// all. The error is Find's.
func Plan(ctx context.Context, data []byte, r *Resolver) ([]Outcome, error) {
	images, err := Find(data)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(images))
	refused := false
	for i, im := range images {
		out[i].Image = im
		switch {
		case im.Kind == ByID || im.Kind == ByDigest:
			out[i].Status = Skipped
		case im.Kind == Invalid:
			out[i].Status, out[i].Err, refused = Refused, errors.New(im.Problem), true
		case !r.Allowed(im.Registry):
			out[i].Status, out[i].Err, refused = Refused, &NotAllowedError{Ref: im.Ref, Registry: im.Registry}, true
		}
	}
	if refused {
		return out, nil
	}
	type answer struct {
		digest string
		err    error
	}
	asked := map[string]answer{}
	for i := range out {
		o := &out[i]
		if o.Kind != Tagged {
			continue
		}
		a, ok := asked[o.Tagged]
		if !ok {
			a.digest, a.err = r.Digest(ctx, o.Tagged)
			asked[o.Tagged] = a
		}
		switch {
		case a.err != nil:
			o.Status, o.Err = Failed, a.err
		case o.Digest == "":
			o.Status, o.Now = Missing, a.digest
		case o.Digest == a.digest:
			o.Status, o.Now = Current, a.digest
		default:
			o.Status, o.Now = Stale, a.digest
		}
	}
	return out, nil
}

// Write returns data with every Missing and Stale image of outcomes (from
// Plan on the same data) pinned: name:tag@sha256:<digest now>, in the
// scalar's quoting, every other byte unchanged (an init TODO comment after
// a pinned image excepted: see TodoComment).
func Write(data []byte, outcomes []Outcome) ([]byte, error) {
	var changes []change
	for _, o := range outcomes {
		if o.Status == Missing || o.Status == Stale {
			changes = append(changes, change{im: o.Image, ref: o.Pinned()})
		}
	}
	if len(changes) == 0 {
		return data, nil
	}
	return rewrite(data, changes)
}

// WriteFile replaces the file at path (after symbolic links) with data,
// atomically: a temporary file in the same folder, with the old file's
// permissions, renamed over it.
func WriteFile(path string, data []byte) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".pin-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), real); err != nil {
		return fmt.Errorf("replacing %s: %w", real, err)
	}
	done = true
	return nil
}
