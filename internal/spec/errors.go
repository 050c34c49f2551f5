package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/behaves-dev/behaves/internal/verdict"
)

// Error is one problem with a spec, at a position in the spec file.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the problem as "file:line:col: message", or
// "file:line: message" when only the line is known.
func (e Error) Error() string {
	if e.Pos.Col == 0 {
		return fmt.Sprintf("%s:%d: %s", e.Pos.File, e.Pos.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Pos.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// Errors is every problem Load found, sorted by position. Load returns it as
// the error value itself, so errors.As finds it.
type Errors []Error

// Error formats one problem per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// sort orders the problems by line, then column, keeping the order in which
// they were found for equal positions.
func (es Errors) sort() {
	slices.SortStableFunc(es, func(a, b Error) int {
		if a.Pos.File != b.Pos.File {
			return strings.Compare(a.Pos.File, b.Pos.File)
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
}

// CheckCPUs returns an Errors naming every profile whose cpus exceeds the
// engine's CPU count n, or nil. The engine refuses to create a container
// that asks for more CPUs than it has, so such a spec would come back
// undetermined case by case. Load cannot check it (validate runs without
// Docker): run calls it once the engine's count is known, before any
// container.
func (s *Spec) CheckCPUs(n int) error {
	var es Errors
	for name, p := range s.Profiles {
		if n > 0 && p.Runtime.CPUs > float64(n) {
			es = append(es, Error{Pos: p.CPUsPos, Msg: fmt.Sprintf(
				"cpus %v in profile %q exceeds the %s the Docker engine has: lower it to %d or less (the engine refuses a container that asks for more)",
				p.Runtime.CPUs, short(name), verdict.Count(n, "CPU", "CPUs"), n)})
		}
		if b := p.Runtime.Build; n > 0 && b != nil && b.CPUs > float64(n) {
			es = append(es, Error{Pos: p.BuildCPUsPos, Msg: fmt.Sprintf(
				"build cpus %v in profile %q exceeds the %s the Docker engine has: lower it to %d or less (the engine refuses a container that asks for more)",
				b.CPUs, short(name), verdict.Count(n, "CPU", "CPUs"), n)})
		}
	}
	if len(es) == 0 {
		return nil
	}
	es.sort()
	return es
}

// CheckImages returns an Errors naming every profile whose image (or build
// stage image) the Docker engine lacks, at that image's position, or nil;
// present asks the engine (its error, when it cannot say, is returned as
// it is). Load cannot check it (validate runs without Docker): validate
// --check-images calls it.
func (s *Spec) CheckImages(present func(ref string) (bool, error)) error {
	names := make([]string, 0, len(s.Profiles))
	for name := range s.Profiles {
		names = append(names, name)
	}
	slices.Sort(names)
	var es Errors
	for _, name := range names {
		p := s.Profiles[name]
		check := func(what, ref string, at Pos) error {
			ok, err := present(ref)
			if err != nil || ok {
				return err
			}
			es = append(es, Error{Pos: at, Msg: fmt.Sprintf("%s %s of profile %q is not on the Docker engine: %s",
				what, ref, short(name), missingImageAdvice(name, ref))})
			return nil
		}
		if err := check("image", p.Runtime.Image, p.ImagePos); err != nil {
			return err
		}
		if b := p.Runtime.Build; b != nil && b.Image != "" && b.Image != p.Runtime.Image {
			if err := check("build image", b.Image, p.BuildImagePos); err != nil {
				return err
			}
		}
	}
	if len(es) == 0 {
		return nil
	}
	es.sort()
	return es
}

// missingImageAdvice says how to get a missing image onto the engine: a
// local image ID names no registry and cannot be pulled; a name@sha256:
// reference can.
func missingImageAdvice(profile, ref string) string {
	if strings.HasPrefix(ref, "sha256:") {
		return fmt.Sprintf("a local image ID cannot be pulled; build or load the image on this engine, or give the ID of one it has (--image %s=sha256:<id>)", short(profile))
	}
	return fmt.Sprintf("pull it (behaves pull --allow-registry HOST, or run --pull-images), or give another with --image %s=REF", short(profile))
}
