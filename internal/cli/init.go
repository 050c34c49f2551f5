package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/behaves-dev/behaves/internal/initspec"
	"github.com/behaves-dev/behaves/internal/pin"
)

var initHelp = commandHelp{
	args: `[--spec behaves.yml] [--image LANG=REF]... [--allow-registry HOST[:PORT]]... [--force]`,
	about: `Writes a starting spec for the git repository it stands in, from the files
git tracks under the spec's folder: a profile per language found (python,
go, c, shell, node: by extension and by marker files such as go.mod,
pyproject.toml and package.json), a program entry per likely program (a
Python script with a main guard, a folder with __main__.py, a Go main
package, a C file with main, a script with a sh, bash or node shebang) and
one placeholder case each, which checks only that the program exits 0.

Each language's image is a tag (python:3.13-slim, golang:1.25, gcc:14,
debian:bookworm-slim, node:22-slim), or what --image LANG=REF names. With
--allow-registry, init asks those registries for each tag's digest, as
behaves pin does (with the Docker config's credentials), and writes
name:tag@sha256:…. An image left as a tag carries a TODO comment naming
the behaves pin command, and behaves validate refuses it until it is
pinned: that is the only thing validate refuses in the file init writes.`,
	exits: `0 written · 2 usage error, the spec exists (--force replaces
            it), no file of a language init knows, or not inside a git work
            tree · 4 the file could not be written`,
}

// langImageFlag collects --image LANG=REF, checked as it is parsed.
type langImageFlag map[initspec.Lang]string

func (f langImageFlag) String() string {
	var s []string
	for k, v := range f {
		s = append(s, string(k)+"="+v)
	}
	sort.Strings(s)
	return strings.Join(s, ",")
}

func (f langImageFlag) Set(s string) error {
	lang, ref, ok := strings.Cut(s, "=")
	if !ok || lang == "" || ref == "" {
		return fmt.Errorf("want LANG=REF, got %q", s)
	}
	known := false
	var names []string
	for _, l := range initspec.Langs {
		names = append(names, string(l))
		known = known || string(l) == lang
	}
	if !known {
		return fmt.Errorf("unknown language %q: init knows %s", lang, strings.Join(names, ", "))
	}
	if msg := initspec.CheckImage(ref); msg != "" {
		return fmt.Errorf("image %q: %s", ref, msg)
	}
	f[initspec.Lang(lang)] = ref
	return nil
}

// initCommand is `behaves init`: flags over initspec.Generate and
// initspec.WriteFile.
func initCommand(ctx context.Context, args []string, env Env) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	path := fs.String("spec", "behaves.yml", "the spec file to write (programs are looked for under its folder)")
	images := langImageFlag{}
	fs.Var(images, "image", "LANG=REF: the image of a language (python, go, c, shell, node): a tag, name@sha256:<digest> or sha256:<id>; repeatable")
	var registries registryFlag
	fs.Var(&registries, "allow-registry", "HOST[:PORT]: a registry init may ask for the digests of the images' tags (as behaves pin does); none by default: the images are then written as tags to pin; repeatable")
	force := fs.Bool("force", false, "replace the spec if it exists")
	timeout := pin.DefaultTimeout
	fs.Var((*timeoutFlag)(&timeout), "timeout", "the longest the resolution of one image may take")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	if !*force {
		for _, p := range []string{*path, otherExtension(*path)} {
			if _, err := os.Lstat(p); err == nil {
				printMessages(env.Stderr, env, fmt.Sprintf("behaves init: %v", &initspec.ExistsError{Path: p}))
				return ExitUsage
			}
		}
	}
	opt := initspec.Options{Dir: filepath.Dir(*path), Images: images}
	if len(registries) > 0 {
		opt.Resolve = newResolver(registries, timeout).Digest
	}
	res, err := initspec.Generate(ctx, opt)
	if err != nil {
		printMessages(env.Stderr, env, fmt.Sprintf("behaves init: %v", err))
		return ExitUsage
	}
	if err := initspec.WriteFile(*path, res.Spec, *force); err != nil {
		var exists *initspec.ExistsError
		printMessages(env.Stderr, env, fmt.Sprintf("behaves init: writing %s: %v", *path, err))
		if errors.As(err, &exists) {
			return ExitUsage
		}
		return ExitRunFailed
	}
	printInit(env, *path, res)
	return ExitTrue
}

// otherExtension is behaves.yaml for behaves.yml and the reverse ("" for
// any other name): init does not write one beside the other.
func otherExtension(path string) string {
	switch {
	case strings.HasSuffix(path, ".yml"):
		return strings.TrimSuffix(path, ".yml") + ".yaml"
	case strings.HasSuffix(path, ".yaml"):
		return strings.TrimSuffix(path, ".yaml") + ".yml"
	}
	return ""
}

// printInit says what init wrote and what to run next.
func printInit(env Env, path string, res *initspec.Result) {
	lines := []string{fmt.Sprintf("behaves init: wrote %s: %s (%s), %s",
		path, countNoun(len(res.Profiles), "profile"), strings.Join(res.Profiles, ", "), countNoun(len(res.Programs), "program"))}
	for _, p := range res.Programs {
		lines = append(lines, fmt.Sprintf("  %-20s %s (profile %s)", p.Name, p.Path, p.Profile))
	}
	if len(res.LeftOut) > 0 {
		lines = append(lines, fmt.Sprintf("  left out %s more, to keep the spec short: %s", countNoun(len(res.LeftOut), "likely program"), strings.Join(res.LeftOut, ", ")))
	}
	if res.NoPrograms {
		lines = append(lines, "  TODO: found no likely program: list at least one under programs: (behaves validate refuses the empty list)")
	}
	for _, n := range res.Notes {
		lines = append(lines, "  note: "+n)
	}
	regs := map[string]bool{}
	var tags []string
	for _, t := range res.Todo {
		tags = append(tags, t.Ref+" ("+t.Profile+")")
		if t.Err != nil {
			lines = append(lines, fmt.Sprintf("  could not pin %s: %v", t.Ref, t.Err))
		}
		if t.Registry != "" {
			regs[t.Registry] = true
		}
	}
	if len(tags) > 0 {
		what := "images written as tags, which behaves validate refuses until they are pinned"
		if len(tags) == 1 {
			what = "image written as a tag, which behaves validate refuses until it is pinned"
		}
		lines = append(lines, fmt.Sprintf("  TODO: %d %s: %s", len(tags), what, strings.Join(tags, ", ")))
	}
	spec := ""
	if path != "behaves.yml" {
		spec = " --spec " + path
	}
	var next []string
	if len(regs) > 0 {
		var flags []string
		for r := range regs {
			flags = append(flags, "--allow-registry "+r)
		}
		sort.Strings(flags)
		next = append(next, "behaves pin"+spec+" "+strings.Join(flags, " "))
	}
	next = append(next, "behaves validate"+spec, "behaves run"+spec)
	lines = append(lines,
		"next: "+strings.Join(next, ", then "),
		"  then give each placeholder case its args, stdin and expect (or let behaves record write them)",
		"  and keep the reports out of git: add behaves-report.* to .gitignore")
	printMessages(env.Stdout, env, lines...)
}
