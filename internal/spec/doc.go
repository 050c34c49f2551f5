// Package spec owns the behaves.yml format: it loads a spec file, validates
// every value against the documented rules and ceilings, reads the program
// and stdin files it names (inside the repository root only; a program's
// files are hashed and kept as content handles, runner.File, whose bytes
// the sandbox reads again when it delivers them), and keeps the
// file:line:col of every entry so that reports can point back at it. It
// returns every problem at once.
//
// The YAML is decoded through yaml.Node, never into structs, so each value
// keeps its position; duplicate keys, unknown keys and wrong types are
// checked by hand. Anchors and aliases are refused without being followed,
// so an alias bomb costs one linear parse.
//
// A program entry gives its cases inline (cases) or in a file of their own
// (cases_file: a YAML list, or JSON Lines with one case object a line),
// parsed with the same rules and positions in that file; see casesfile.go.
//
// Paths (file, files, stdin_file, cases_file) are relative to the spec's
// folder, except a stdin_file in a cases file: relative to that file's. Each
// must stay inside the repository root (the nearest folder at or above the
// spec's folder with a .git entry, else the spec's folder) both as written
// and after resolving symlinks, must be a regular file (checked with Lstat
// before anything opens it, so a FIFO or device never blocks the loader),
// and is capped at Options.MaxFileSize (DefaultMaxFileSize, 16 MiB).
//
// The workspace rule (workspace.go) keeps the runner's credentials out of
// reach: no path may have a component naming .git, and inside a git work
// tree a path must be one git tracks (read from the index by gitindex),
// both as written and after resolving symlinks, unless
// Options.AllowUntracked (the CLI's --allow-untracked) admits it; nothing
// admits .git. The spec file itself must resolve inside the root and
// outside .git.
//
// Profile defaults: timeout DefaultTimeout (10s), memory DefaultMemory
// (256MiB), cpus 1, pids 64, output_limit 64KiB, output_ceiling
// min(64 × output_limit, --max-output), user "65534:65534", no tmpfs, no
// env, the engine's default runtime, network_files none, and program_name
// the program file's base name. Limits above a ceiling (Options.Ceilings) are errors naming
// both values; nothing is clamped.
package spec
