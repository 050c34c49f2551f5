package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/behaves-dev/behaves/internal/runner"
)

// The JSON Schema of the spec (draft 2020-12), for editors: keys, types,
// enumerations, required fields and the simple value patterns the loader
// also checks (sizes, durations, uid:gid, names). It is built from the
// loader's own key tables (topKeys, profileKeys, programKeys, caseKeys,
// expectKeys, matcherKeys) and patterns, so a key the loader accepts and
// the schema lacks, or the reverse, is an error here, not a silent drift.
// What needs more than one value or the file system stays with Load
// (behaves validate): unique names, profile references, paths and
// globs, regex validity, ceilings, NUL bytes, tmpfs paths that cover
// /program or /proc. The image is checked as written: a --image override
// that replaces an unpinned image is the workflow's, which the schema
// cannot see.

// SchemaID is the schema's $id: where the repository publishes it.
const SchemaID = "https://raw.githubusercontent.com/behaves-dev/behaves/main/docs/behaves.schema.json"

// Patterns that exist only for the schema; the loader checks these rules
// in code (checkImage, checkUser, time.ParseDuration, name).
const (
	// schemaImage is a pinned image: a local image ID, or any name with a
	// registry digest (the loader also checks the name's grammar).
	schemaImage = `^(sha256:[0-9a-f]{64}|[^@]+@sha256:[0-9a-f]{64})$`
	// schemaUser is a numeric uid:gid, both above 0.
	schemaUser = `^0*[1-9][0-9]*:0*[1-9][0-9]*$`
	// schemaDuration is Go's duration syntax with a unit on every number.
	schemaDuration = `^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`
	// schemaName is a name with something other than a space in it and
	// no control character (unicode.IsControl: C0, DEL, C1).
	schemaName = `^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$`
)

// schemaObject is one object of the spec: its keys (the loader's table)
// and what each key's value is.
type schemaObject struct {
	def         string
	description string
	keys        []string
	props       map[string]map[string]any
	required    []string
	// extra holds further keywords (oneOf, not).
	extra map[string]any
}

func jsString(desc string) map[string]any {
	return map[string]any{"type": "string", "description": desc}
}

func jsRef(def, desc string) map[string]any {
	return map[string]any{"$ref": "#/$defs/" + def, "description": desc}
}

// schemaPlaceholder matches an argument that holds the build command's
// placeholder.
var schemaPlaceholder = regexp.QuoteMeta(runner.ProgramPlaceholder)

func jsWith(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func jsList(desc string) map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
}

func jsSize(desc string) map[string]any {
	return jsWith(jsString(desc+" (B, KiB, MiB or GiB: 64KiB, 256MiB)"), "pattern", sizeRE.String())
}

// schemaObjects are the spec's objects, each keyed by the loader's table.
func schemaObjects() []schemaObject {
	return []schemaObject{
		{
			def:         "spec",
			description: "A behaves spec (behaves.yml).",
			keys:        topKeys,
			props: map[string]map[string]any{
				"version": {"type": "integer", "const": Version, "description": "The spec format version: 1."},
				"profiles": {
					"type": "object", "minProperties": 1,
					"propertyNames":        map[string]any{"pattern": profileNameRE.String()},
					"additionalProperties": map[string]any{"$ref": "#/$defs/profile"},
					"description":          "Runtime profiles by name (letters, digits, '.', '_', '-').",
				},
				"programs": {
					"type": "array", "minItems": 1,
					"items":       map[string]any{"$ref": "#/$defs/program"},
					"description": "The programs to judge, each with its cases.",
				},
				"checkers": {
					"type":                 "object",
					"propertyNames":        map[string]any{"pattern": checkerNameRE.String()},
					"additionalProperties": map[string]any{"$ref": "#/$defs/checker"},
					"description":          "Checker programs by name (letters, digits, '.', '_', '-'): a stream matcher {checker: NAME} hands its judgement to one. Never judged themselves.",
				},
			},
			required: []string{"version", "profiles", "programs"},
		},
		{
			def:         "checker",
			description: "A checker program: it gets the case's input, the program's output and the answer as three read-only files, their paths its arguments (testlib's order), and exits 0 (right), 1 or 2 (wrong), 3 (it failed).",
			keys:        checkerKeys,
			props: map[string]map[string]any{
				"file":    jsString("The checker's file, relative to the spec's folder."),
				"dir":     jsString("A folder relative to the spec's folder: a checker made of every file git tracks under it."),
				"entry":   jsString("With dir: the file, relative to the folder, whose path /program/<entry> the profile's command is given."),
				"profile": jsString("The name of a profile under profiles: the checker's image, command, limits and build stage."),
			},
			required: []string{"profile"},
			extra: map[string]any{"allOf": []any{
				map[string]any{"oneOf": []any{
					map[string]any{"required": []any{"file"}},
					map[string]any{"required": []any{"dir"}},
				}},
				map[string]any{"dependentRequired": map[string]any{"entry": []any{"dir"}}},
			}},
		},
		{
			def:         "profile",
			description: "How a program runs: image, command and limits.",
			keys:        profileKeys,
			props: map[string]map[string]any{
				"image": jsWith(jsString("A pinned image: name@sha256:<64 hex> (a registry digest) or sha256:<64 hex> (a local image ID). Never pulled by tag."),
					"pattern", schemaImage),
				"command": jsWith(jsList("The argv; /program/<program_name> and the case's args are appended. {program} is a build command's placeholder, never a run command's."),
					"minItems", 1, "prefixItems", []any{map[string]any{"type": "string", "minLength": 1}},
					"items", map[string]any{"type": "string", "not": map[string]any{"pattern": schemaPlaceholder}}),
				"program_name": jsWith(jsString("The program's file name under /program (default: the program file's base name)."),
					"pattern", `^[^/]+$`, "not", map[string]any{"enum": []any{".", ".."}}),
				"timeout": jsWith(jsString("The program's own run time, a Go duration (default 10s): 5s, 1500ms, 2m."),
					"pattern", schemaDuration),
				"memory": jsSize("Memory limit, swap never added (default 256MiB, at least 6MiB)"),
				"cpus": {"type": "number", "minimum": minCPUs, "maximum": maxCPUs,
					"description": "CPU quota in cores (default 1)."},
				"pids": {"type": "integer", "minimum": 1,
					"description": "Process and thread limit (default 64)."},
				"output_limit":   jsSize("Bytes kept per stream (default 64KiB)"),
				"output_ceiling": jsSize("Bytes on one stream past which the container is killed (default min(64 × output_limit, --max-output))"),
				"user": jsWith(jsString(`Numeric "uid:gid", both above 0 (default "65534:65534").`),
					"pattern", schemaUser),
				"tmpfs": {"type": "object",
					"propertyNames":        map[string]any{"pattern": "^/" + strings.TrimPrefix(tmpfsPathRE.String(), "^")},
					"additionalProperties": jsSize("Size"),
					"description":          "Writable scratch mounts: absolute path to size, like {/tmp: 16MiB}."},
				"env": {"type": "object",
					"propertyNames":        map[string]any{"pattern": envNameRE.String()},
					"additionalProperties": map[string]any{"type": "string"},
					"description":          "The program's environment, like {LANG: C.UTF-8}; nothing from behaves' own."},
				"network_files": jsWith(jsString(`none (default): no engine-managed /etc/hosts and resolv.conf, the fast start; managed: the engine writes them (localhost resolves by name), at the cost of its network sandbox.`),
					"enum", []any{string(runner.NetworkFilesNone), string(runner.NetworkFilesManaged)}),
				"runtime": jsWith(jsString(`An OCI runtime, like runsc (gVisor); "" for the engine's default.`),
					"pattern", "^("+strings.TrimSuffix(strings.TrimPrefix(runtimeRE.String(), "^"), "$")+")?$"),
				"repeat": {"type": "integer", "minimum": 1, "maximum": MaxRepeat,
					"description": "How many times each case runs, each run in a fresh container, unless the case sets its own (default 1)."},
				"build": jsRef("build", "A build stage, run once per program before its cases; with it, command is the full argv prefix (only the case's args are appended)."),
			},
			required: []string{"image", "command"},
		},
		{
			def:         "build",
			description: "Compile once, run many: the build's container writes /build, which every case mounts read-only.",
			keys:        buildKeys,
			props: map[string]map[string]any{
				"image": jsWith(jsString("A pinned image for the build (default: the profile's)."),
					"pattern", schemaImage),
				"command": jsWith(jsList("The build's argv; /program/<program_name> is appended, or goes where a {program} argument stands (a whole argument, at most once)."),
					"minItems", 1, "prefixItems", []any{map[string]any{"type": "string", "minLength": 1}},
					"items", map[string]any{"type": "string", "anyOf": []any{
						map[string]any{"const": runner.ProgramPlaceholder},
						map[string]any{"not": map[string]any{"pattern": schemaPlaceholder}},
					}},
					"contains", map[string]any{"const": runner.ProgramPlaceholder}, "minContains", 0, "maxContains", 1),
				"timeout": jsWith(jsString("The build's run time, a Go duration (default: the profile's)."),
					"pattern", schemaDuration),
				"memory": jsSize("The build's memory limit (default: the profile's)"),
				"cpus": {"type": "number", "minimum": minCPUs, "maximum": maxCPUs,
					"description": "The build's CPU quota in cores (default: the profile's)."},
				"pids": {"type": "integer", "minimum": 1,
					"description": "The build's process and thread limit (default: the profile's)."},
				"output_limit":   jsSize("Bytes of the build's output kept per stream (default: the profile's)"),
				"output_ceiling": jsSize("Bytes on one stream past which the build is killed (default: the profile's)"),
				"output_size":    jsSize("What /build may hold after the build (default 64MiB)"),
				"tmpfs": {"type": "object",
					"propertyNames":        map[string]any{"pattern": "^/" + strings.TrimPrefix(tmpfsPathRE.String(), "^")},
					"additionalProperties": jsSize("Size"),
					"description":          "The build's scratch mounts (default {/tmp: 64MiB})."},
			},
			required: []string{"command"},
		},
		{
			def:         "program",
			description: "One program (file), one per matching file (files), or one made of a folder's files (dir), or one per matching folder (dirs), all with the same cases.",
			keys:        programKeys,
			props: map[string]map[string]any{
				"name":    jsWith(jsString("The program's name, unique in the spec."), "pattern", schemaName),
				"file":    jsString("The program file, relative to the spec's folder."),
				"files":   jsString("A glob relative to the spec's folder: one program per match, named <name>/<base name>."),
				"dir":     jsString("A folder relative to the spec's folder: one program made of every file git tracks under it, delivered at /program/<path relative to the folder>."),
				"dirs":    jsString("A glob relative to the spec's folder: one folder program per matching folder, named <name>/<folder's base name>."),
				"with":    {"type": "array", "items": map[string]any{"type": "string"}, "description": "Files delivered beside every program of the entry, at /program/<path as written, relative to the spec's folder>: a harness every sample shares."},
				"entry":   jsString("With dir or dirs: the file, relative to the folder, whose path /program/<entry> the profile's command is given; without it nothing is appended."),
				"profile": jsString("The name of a profile under profiles."),
				"cases": {"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/case"},
					"description": "The cases: one invocation each."},
				"cases_file": jsWith(jsString("A file of cases instead of cases: a YAML list (.yaml, .yml) or one case object a line (.jsonl), relative to the spec's folder."),
					"pattern", `\.(ya?ml|jsonl)$`),
				"reference": jsWith(jsString("Another program entry (a file: entry) whose output the same_as cases compare with."), "pattern", schemaName),
				"gate":      {"type": "boolean", "description": "false: the program's verdict is reported but does not decide the run's (default true); holds only for entries the workflow admits with --allow-non-gating."},
				"inputs_file": {
					"description": "JSON Lines, one {\"args\": [...], \"stdin\": \"...\"} a line, relative to the spec's folder: line N is the case #N, compared with the reference (exit code, stdout, stderr); or a mapping with path and the comparison its cases make.",
					"oneOf": []any{
						jsWith(jsString("The inputs file, compared on the exit code, stdout and stderr."), "pattern", `\.jsonl$`),
						map[string]any{"$ref": "#/$defs/inputs"},
					},
				},
			},
			required: []string{"name", "profile"},
			extra: map[string]any{"allOf": []any{
				map[string]any{"oneOf": []any{
					map[string]any{"required": []any{"file"}},
					map[string]any{"required": []any{"files"}},
					map[string]any{"required": []any{"dir"}},
					map[string]any{"required": []any{"dirs"}},
				}},
				map[string]any{"if": map[string]any{"required": []any{"entry"}}, "then": map[string]any{"anyOf": []any{
					map[string]any{"required": []any{"dir"}},
					map[string]any{"required": []any{"dirs"}},
				}}},
				map[string]any{"not": map[string]any{"required": []any{"cases", "cases_file"}}},
				map[string]any{"anyOf": []any{
					map[string]any{"required": []any{"cases"}},
					map[string]any{"required": []any{"cases_file"}},
					map[string]any{"required": []any{"inputs_file"}},
				}},
				map[string]any{"dependentRequired": map[string]any{"inputs_file": []any{"reference"}}},
			}},
		},
		{
			def:         "inputs",
			description: "An inputs file and what its cases compare with the reference (a same_as expectation's options, by default both streams).",
			keys:        inputsFileKeys,
			props: map[string]map[string]any{
				"path": jsWith(jsString("JSON Lines, one {\"args\": [...], \"stdin\": \"...\"} a line, relative to the spec's folder: line N is the case #N."),
					"pattern", `\.jsonl$`),
				"streams": {"type": "array", "minItems": 1, "uniqueItems": true, "items": map[string]any{"enum": []any{"stdout", "stderr"}},
					"description": "The streams compared besides the exit code (default [stdout, stderr])."},
				"ignore_case": {"type": "boolean", "description": "Compare case-insensitively (default false)."},
				"normalize": {"enum": []any{"trailing", "exact", "whitespace"},
					"description": "How both outputs are normalised before comparing (default trailing)."},
			},
			required: []string{"path"},
		},
		{
			def:         "case",
			description: "One invocation and what it expects.",
			keys:        caseKeys,
			props: map[string]map[string]any{
				"name": jsWith(jsString("The case's name, unique in its program; not beginning with # (kept for an inputs_file's #1, #2, …)."),
					"pattern", schemaName, "not", map[string]any{"pattern": "^#"}),
				"args":       jsList("Arguments after the program path (default none)."),
				"stdin":      jsString("The program's stdin (default empty)."),
				"stdin_file": jsString("A file whose bytes are the stdin, relative to the spec's folder."),
				"expect":     jsRef("expect", "What counts as behaving (default: exit code 0, streams unchecked)."),
				"repeat": {"type": "integer", "minimum": 1, "maximum": MaxRepeat,
					"description": "How many times the case runs, each run in a fresh container (default: the profile's repeat, else 1); runs that disagree make it undetermined and nondeterministic."},
			},
			required: []string{"name"},
			extra:    map[string]any{"not": map[string]any{"required": []any{"stdin", "stdin_file"}}},
		},
		{
			def:         "expect",
			description: "The exit code and the stream matchers.",
			keys:        expectKeys,
			props: map[string]map[string]any{
				"exit_code": {"type": "integer", "minimum": 0, "maximum": 255, "description": "The expected exit code (default 0)."},
				"stdout":    jsStreamMatcher("stdout"),
				"stderr":    jsStreamMatcher("stderr"),
				"same_as": {"enum": []any{"reference"},
					"description": "Compare with the program entry's reference on the same invocation: the exit code and the streams listed, instead of exit_code, stdout and stderr."},
				"streams": {"type": "array", "minItems": 1, "uniqueItems": true, "items": map[string]any{"enum": []any{"stdout", "stderr"}},
					"description": "With same_as: the streams compared (default [stdout])."},
				"ignore_case": {"type": "boolean", "description": "With same_as: compare case-insensitively (default false)."},
				"normalize": {"enum": []any{"trailing", "exact", "whitespace"},
					"description": "With same_as: how both outputs are normalised before comparing (default trailing)."},
			},
			extra: map[string]any{"allOf": []any{
				map[string]any{"if": map[string]any{"required": []any{"same_as"}},
					"then": map[string]any{"not": map[string]any{"anyOf": []any{
						map[string]any{"required": []any{"exit_code"}},
						map[string]any{"required": []any{"stdout"}},
						map[string]any{"required": []any{"stderr"}},
					}}},
					"else": map[string]any{"not": map[string]any{"anyOf": []any{
						map[string]any{"required": []any{"streams"}},
						map[string]any{"required": []any{"normalize"}},
						map[string]any{"required": []any{"ignore_case"}},
					}}},
				},
			}},
		},
		{
			def:         "matcher",
			description: "Exactly one of equals, contains, regex, json, numbers or checker, with its options.",
			keys:        matcherKeys,
			props: map[string]map[string]any{
				"equals":   jsString("The whole output, after normalize (with unordered: its lines, in any order)."),
				"contains": jsString("A part of the output, after normalize."),
				"regex":    jsString("An RE2 expression, searched (a match anywhere)."),
				"json":     {"description": "The output is one JSON document equal by value to this (any YAML value, or a string holding JSON); with lines, one a line (a list, or a string of lines)."},
				"numbers": {"type": []any{"string", "number", "array"}, "items": map[string]any{"type": []any{"string", "number"}},
					"description": "The expected whitespace-separated tokens: numbers compare by value (within abs or rel), other tokens exactly."},
				"ignore_case": {"type": "boolean", "description": "Compare case-insensitively (default false; equals, contains, regex)."},
				"normalize": {"enum": []any{"trailing", "exact", "whitespace"},
					"description": "trailing (default): CRLF to LF, line-end blanks and trailing newlines stripped; exact: bytes as they are; whitespace: every run collapsed to one space (equals, contains, regex)."},
				"unordered": {"type": "boolean", "description": "equals: the lines in any order; json: arrays in any order (default false)."},
				"lines":     {"type": "boolean", "description": "json: one JSON document a line (default false)."},
				"subset":    {"type": "boolean", "description": "json: objects may hold members the expectation does not name (default false)."},
				"abs":       {"type": "number", "minimum": 0, "description": "json, numbers: a number passes within this absolute difference (or within rel)."},
				"rel":       {"type": "number", "minimum": 0, "description": "json, numbers: a number passes within this relative difference (or within abs)."},
				"checker": jsWith(jsString("The name of a checker under checkers: it judges the output (exit 0 right, 1 or 2 wrong, anything else undetermined)."),
					"pattern", checkerNameRE.String()),
				"answer":      jsString("checker: the text the checker gets as its answer file (default empty)."),
				"answer_file": jsString("checker: a file whose bytes the checker gets as its answer file, relative to the spec's folder."),
			},
			extra: map[string]any{
				"oneOf": []any{
					map[string]any{"required": []any{"equals"}},
					map[string]any{"required": []any{"contains"}},
					map[string]any{"required": []any{"regex"}},
					map[string]any{"required": []any{"json"}},
					map[string]any{"required": []any{"numbers"}},
					map[string]any{"required": []any{"checker"}},
				},
				"dependentRequired": map[string]any{"lines": []any{"json"}, "subset": []any{"json"}, "answer": []any{"checker"}, "answer_file": []any{"checker"}},
				"not":               map[string]any{"required": []any{"answer", "answer_file"}},
				"allOf": []any{
					jsOnlyWith("unordered", "equals", "json"),
					jsOnlyWith("abs", "json", "numbers"),
					jsOnlyWith("rel", "json", "numbers"),
					jsOnlyWith("ignore_case", "equals", "contains", "regex"),
					jsOnlyWith("normalize", "equals", "contains", "regex"),
				},
			},
		},
	}
}

// jsStreamMatcher is a stream's expectation: one matcher, or a list of
// them that must all hold.
func jsStreamMatcher(stream string) map[string]any {
	return map[string]any{
		"description": "A matcher for " + stream + ", or a list of matchers that must all hold; absent: not checked.",
		"oneOf": []any{
			map[string]any{"$ref": "#/$defs/matcher"},
			map[string]any{"type": "array", "minItems": 1, "items": map[string]any{"$ref": "#/$defs/matcher"}},
		},
	}
}

// jsOnlyWith says that key may appear only beside one of kinds.
func jsOnlyWith(key string, kinds ...string) map[string]any {
	alts := make([]any, len(kinds))
	for i, k := range kinds {
		alts[i] = map[string]any{"required": []any{k}}
	}
	return map[string]any{"if": map[string]any{"required": []any{key}}, "then": map[string]any{"anyOf": alts}}
}

// buildSchema returns the schema document for objs, whose first object is
// the root. It fails when an object's properties are not exactly its key
// table, or when a required key is not among them.
func buildSchema(objs []schemaObject) (map[string]any, error) {
	defs := map[string]any{}
	var root map[string]any
	for i, o := range objs {
		got := slices.Sorted(maps.Keys(o.props))
		want := slices.Sorted(slices.Values(o.keys))
		if !slices.Equal(got, want) {
			return nil, fmt.Errorf("schema of %s: properties %v are not the loader's keys %v", o.def, got, want)
		}
		for _, r := range o.required {
			if !slices.Contains(o.keys, r) {
				return nil, fmt.Errorf("schema of %s: required key %q is not one the loader reads", o.def, r)
			}
		}
		props := map[string]any{}
		for k, v := range o.props {
			props[k] = v
		}
		obj := map[string]any{
			"type":                 "object",
			"description":          o.description,
			"properties":           props,
			"additionalProperties": false,
		}
		if len(o.required) > 0 {
			obj["required"] = o.required
		}
		maps.Copy(obj, o.extra)
		if i == 0 {
			root = obj
			continue
		}
		defs[o.def] = obj
	}
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "behaves spec"
	root["$defs"] = defs
	return root, nil
}

// Schema returns the spec's JSON Schema (draft 2020-12), indented, with a
// final newline: what `behaves schema` prints and docs/behaves.schema.json
// holds. Every $ref is a JSON pointer into its own $defs.
func Schema() ([]byte, error) {
	doc, err := buildSchema(schemaObjects())
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the schema: %w", err)
	}
	return buf.Bytes(), nil
}
