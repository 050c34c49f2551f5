package runner

// The checks every backend makes of what it is asked to run, before it
// makes anything: a profile the sandbox can honour, and a program's files
// laid out as they appear under /program.

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// CheckRelPath accepts a clean, relative, slash-separated path that stays
// inside its root.
func CheckRelPath(p string) error {
	switch {
	case p == "" || p == ".":
		return fmt.Errorf("empty path")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("path %q contains NUL", p)
	case path.IsAbs(p):
		return fmt.Errorf("path %q is absolute", p)
	case path.Clean(p) != p:
		return fmt.Errorf("path %q is not clean", p)
	case p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("path %q leaves the program directory", p)
	}
	return nil
}

// ProgramFiles lays the program's files out as they appear under /program:
// a one-file program's entry file under the profile's program name, every
// other file (and every file of a folder program) at its own path.
func ProgramFiles(prog Program, programName string) (Program, error) {
	if prog.Folder {
		if _, ok := prog.Files[prog.Entry]; prog.Entry != "" && !ok {
			return Program{}, fmt.Errorf("the program has no entry file %q", prog.Entry)
		}
		return prog, nil
	}
	if _, ok := prog.Files[prog.Entry]; !ok {
		return Program{}, fmt.Errorf("the program has no entry file %q", prog.Entry)
	}
	out := Program{Files: make(map[string]File, len(prog.Files)), Entry: programName}
	for p, f := range prog.Files {
		if p == prog.Entry {
			continue
		}
		if err := CheckRelPath(p); err != nil {
			return Program{}, err
		}
		out.Files[p] = f
	}
	if _, ok := out.Files[programName]; ok {
		return Program{}, fmt.Errorf("the program name %q is also the path of another program file", programName)
	}
	out.Files[programName] = prog.Files[prog.Entry]
	return out, nil
}

// CheckProfile rejects a profile the container settings cannot honour, and
// fills the program name's default (the entry file's base name; a folder
// program's entry keeps its own path).
func CheckProfile(prof Profile, prog Program) (Profile, error) {
	var errs []error
	switch {
	case prog.Folder:
		prof.ProgramName = prog.Entry
		if prog.Entry != "" {
			if err := CheckRelPath(prog.Entry); err != nil {
				errs = append(errs, fmt.Errorf("the entry: %w", err))
			}
		}
	case prof.ProgramName == "":
		prof.ProgramName = path.Base(prog.Entry)
		fallthrough
	default:
		if n := prof.ProgramName; n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\x00") {
			errs = append(errs, fmt.Errorf("program name %q is not a single file name", n))
		}
	}
	if len(prof.Command) == 0 {
		errs = append(errs, errors.New("the profile has no command"))
	}
	if prof.Timeout <= 0 {
		errs = append(errs, errors.New("the timeout must be positive"))
	}
	if prof.Memory <= 0 {
		errs = append(errs, errors.New("the memory limit must be positive"))
	}
	if prof.CPUs <= 0 {
		errs = append(errs, errors.New("the CPU quota must be positive"))
	}
	// A pointer to 0 would mean "unlimited" to the engine.
	if prof.Pids <= 0 {
		errs = append(errs, errors.New("the pids limit must be positive"))
	}
	if prof.OutputLimit < 0 || prof.OutputCeiling < 0 {
		errs = append(errs, errors.New("output limits must not be negative"))
	}
	if err := CheckUser(prof.User); err != nil {
		errs = append(errs, err)
	}
	for p, size := range prof.Tmpfs {
		if !path.IsAbs(p) || path.Clean(p) == "/" || size <= 0 {
			errs = append(errs, fmt.Errorf("tmpfs %q (%d bytes) needs an absolute path below / and a positive size", p, size))
		}
		if c := path.Clean(p); c == DefaultProgramDir || strings.HasPrefix(c, DefaultProgramDir+"/") {
			errs = append(errs, fmt.Errorf("tmpfs %q would cover the program", p))
		}
	}
	for k := range prof.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, fmt.Errorf("environment name %q is invalid", k))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return prof, fmt.Errorf("profile %s: %w", prof.Name, err)
	}
	return prof, nil
}

// CheckUser accepts a numeric "uid:gid" with both above 0.
func CheckUser(u string) error {
	uid, gid, ok := strings.Cut(u, ":")
	for _, part := range []string{uid, gid} {
		n, err := strconv.ParseUint(part, 10, 32)
		if !ok || err != nil || n == 0 {
			return fmt.Errorf("user %q must be a numeric uid:gid, both above 0", u)
		}
	}
	return nil
}
