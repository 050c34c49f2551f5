package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/reportschema/schematest"
)

// compiledSchema compiles Schema() with santhosh-tekuri/jsonschema, a
// draft 2020-12 validator, once per test binary.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	data, err := Schema()
	if err != nil {
		return nil, err
	}
	return schematest.Compile(data, SchemaID)
})

func mustSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	sch, err := compiledSchema()
	if err != nil {
		t.Fatalf("compiling the schema: %v", err)
	}
	return sch
}

// yamlToJSON converts a YAML document to the value a JSON Schema
// validator takes, by the same tags the loader reads: !!str a string,
// !!int and !!float a number (a float JSON cannot hold, .inf or .nan,
// stays a string, which no numeric keyword takes), !!bool, !!null.
// Anchors and aliases are refused by the loader; here an alias is an
// error too.
func yamlToJSON(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("empty document")
	}
	return nodeToJSON(doc.Content[0])
}

func nodeToJSON(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := nodeToJSON(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := []any{}
		for _, c := range n.Content {
			v, err := nodeToJSON(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int":
			var v int64
			if err := n.Decode(&v); err != nil {
				return n.Value, nil // too large for the loader too
			}
			return json.Number(fmt.Sprint(v)), nil
		case "!!float":
			var v float64
			if err := n.Decode(&v); err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return n.Value, nil
			}
			return json.Number(fmt.Sprint(v)), nil
		case "!!bool":
			var v bool
			err := n.Decode(&v)
			return v, err
		case "!!null":
			return nil, nil
		default:
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("line %d: %v node", n.Line, n.Kind)
}

// validateYAML validates a YAML spec against the schema.
func validateYAML(t *testing.T, data []byte) error {
	t.Helper()
	v, err := yamlToJSON(data)
	if err != nil {
		t.Fatalf("converting YAML to JSON: %v", err)
	}
	return mustSchema(t).Validate(v)
}

func TestSchemaFile(t *testing.T) {
	t.Parallel()
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "behaves.schema.json")
	checkGolden(t, path, string(got))
}

// TestSchemaKeysAreLoaderKeys reads the printed schema back and checks
// each object's properties against the loader's key table: a key the
// loader reads and the schema lacks, or the reverse, fails here.
func TestSchemaKeysAreLoaderKeys(t *testing.T) {
	t.Parallel()
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties           map[string]any `json:"properties"`
		AdditionalProperties *bool          `json:"additionalProperties"`
		Defs                 map[string]struct {
			Properties           map[string]any `json:"properties"`
			AdditionalProperties *bool          `json:"additionalProperties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	check := func(name string, props map[string]any, addl *bool, keys []string) {
		got := slices.Sorted(maps.Keys(props))
		want := slices.Sorted(slices.Values(keys))
		if !slices.Equal(got, want) {
			t.Errorf("%s: schema properties %v, loader keys %v", name, got, want)
		}
		if addl == nil || *addl {
			t.Errorf("%s: additionalProperties is not false: unknown keys would pass", name)
		}
	}
	check("the spec", doc.Properties, doc.AdditionalProperties, topKeys)
	tables := map[string][]string{
		"profile": profileKeys, "program": programKeys, "case": caseKeys,
		"expect": expectKeys, "matcher": matcherKeys, "build": buildKeys, "inputs": inputsFileKeys,
		"checker": checkerKeys,
	}
	if got := slices.Sorted(maps.Keys(doc.Defs)); !slices.Equal(got, slices.Sorted(maps.Keys(tables))) {
		t.Errorf("$defs %v, want one per loader table %v", got, slices.Sorted(maps.Keys(tables)))
	}
	for name, keys := range tables {
		d := doc.Defs[name]
		check(name, d.Properties, d.AdditionalProperties, keys)
	}
}

// TestSchemaBuildRefusesDrift shows buildSchema refusing an object whose
// properties differ from its key table either way.
func TestSchemaBuildRefusesDrift(t *testing.T) {
	t.Parallel()
	for name, change := range map[string]func([]schemaObject){
		"key the schema lacks": func(o []schemaObject) {
			o[len(o)-1].keys = append(slices.Clone(o[len(o)-1].keys), "new_key")
		},
		"key the loader lacks": func(o []schemaObject) {
			o[1].props = maps.Clone(o[1].props)
			o[1].props["imgae"] = jsString("")
		},
		"required key the loader lacks": func(o []schemaObject) {
			o[2].required = append(slices.Clone(o[2].required), "nom")
		},
	} {
		objs := schemaObjects()
		change(objs)
		if _, err := buildSchema(objs); err == nil {
			t.Errorf("%s: buildSchema succeeded", name)
		}
	}
}

// TestSchemaRefsResolve checks that every $ref is a pointer into the
// schema's own $defs that exists (the compile above would fail on one that
// does not, as it fetches nothing), and that stdout and stderr share one
// matcher.
func TestSchemaRefsResolve(t *testing.T) {
	t.Parallel()
	mustSchema(t)
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	defs, _ := doc["$defs"].(map[string]any)
	var refs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				if s, ok := c.(string); ok && k == "$ref" {
					refs = append(refs, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	if len(refs) == 0 {
		t.Fatal("no $ref found")
	}
	for _, r := range refs {
		name, ok := strings.CutPrefix(r, "#/$defs/")
		if !ok || defs[name] == nil {
			t.Errorf("$ref %q does not resolve to an entry of $defs", r)
		}
	}
	expect := defs["expect"].(map[string]any)["properties"].(map[string]any)
	for _, stream := range []string{"stdout", "stderr"} {
		// One matcher, or a list of them.
		alts, _ := expect[stream].(map[string]any)["oneOf"].([]any)
		if len(alts) != 2 || alts[0].(map[string]any)["$ref"] != "#/$defs/matcher" ||
			alts[1].(map[string]any)["items"].(map[string]any)["$ref"] != "#/$defs/matcher" {
			t.Errorf("expect.%s: %v, want a matcher or a list of them", stream, expect[stream])
		}
	}
}

// imageOverridden are ok specs that only --image makes valid: the schema,
// like behaves without the flag, refuses them.
var imageOverridden = map[string]bool{"image_override.yaml": true}

// TestSchemaAcceptsValidSpecs: every spec the loader accepts in the
// repository (its tests' specs, the demo's) passes the schema.
func TestSchemaAcceptsValidSpecs(t *testing.T) {
	t.Parallel()
	specs, err := filepath.Glob(filepath.Join("testdata", "spec", "ok", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no ok specs: %v", err)
	}
	specs = append(specs, filepath.Join("..", "..", "demo", "behaves.yml"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.yml"))
	specs = append(specs, more...)
	for _, p := range specs {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			err = validateYAML(t, data)
			if imageOverridden[filepath.Base(p)] {
				if err == nil {
					t.Fatal("the schema accepts an unpinned image")
				}
				return
			}
			if err != nil {
				t.Errorf("the schema refuses a valid spec:\n%v", err)
			}
		})
	}
}

// docPlaceholders are the placeholders the docs' example specs write for a
// digest.
var docPlaceholders = strings.NewReplacer("<digest>", strings.Repeat("0", 64), "<64 hex>", strings.Repeat("0", 64))

var (
	yamlBlockRE = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")
	topVersion  = regexp.MustCompile(`(?m)^version:`)
	topPrograms = regexp.MustCompile(`(?m)^programs:`)
)

// TestSchemaAcceptsDocSpecs: the specs the README and docs/spec.md show
// pass the schema (a YAML block with top-level version and programs keys
// is a spec;
// digest placeholders are filled in).
func TestSchemaAcceptsDocSpecs(t *testing.T) {
	t.Parallel()
	n := 0
	for _, doc := range []string{"README.md", "docs/spec.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range yamlBlockRE.FindAllSubmatch(data, -1) {
			block := docPlaceholders.Replace(string(m[1]))
			if !topVersion.MatchString(block) || !topPrograms.MatchString(block) {
				continue
			}
			n++
			if err := validateYAML(t, []byte(block)); err != nil {
				t.Errorf("%s, YAML block %d: the schema refuses it:\n%v", doc, i+1, err)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d spec(s) in the docs, want the README's and docs/spec.md's", n)
	}
}

// errSpecKinds classifies every golden error spec: "schema" when it holds
// a mistake the schema describes (so both the loader and the schema refuse
// it), "validate" when every mistake in it needs behaves validate (names
// that repeat, paths, ceilings, NUL bytes, regex syntax: the schema
// accepts it), "yaml" when it is not one plain YAML document.
var errSpecKinds = map[string]string{
	"alias_bomb":                   "yaml",
	"anchors":                      "yaml",
	"ceilings":                     "validate",
	"checkers":                     "schema",
	"checkers_none":                "validate", // names a checker the spec lacks: the schema sees no checkers to compare
	"checkers_memory":              "validate",
	"ceilings_flags":               "validate",
	"control_char":                 "yaml",
	"dotgit":                       "validate",
	"duplicate_keys":               "yaml",
	"empty":                        "yaml",
	"empty_lists":                  "schema",
	"file_files":                   "schema",
	"file_too_big":                 "validate",
	"forged_text":                  "schema",
	"image_override":               "schema", // a profile without image, which only --image fills
	"network_files":                "schema",
	"build":                        "schema",
	"build_placeholder":            "schema",
	"case_name_hash":               "schema",
	"same_as":                      "schema",
	"inputs_file":                  "schema",
	"same_as_memory":               "validate",
	"cases_file_both":              "schema",
	"cases_file_empty":             "validate", // the cases file's contents: the schema sees the spec only
	"cases_file_jsonl":             "validate",
	"cases_file_paths":             "schema", // a wrong extension and a list; its path mistakes are validate's
	"cases_file_yaml":              "validate",
	"matchers":                     "schema",
	"structured_matchers":          "schema",
	"gate":                         "schema",
	"max_cases":                    "validate",
	"max_cases_repeat":             "validate",
	"missing_sections":             "schema",
	"multi_doc":                    "yaml",
	"names":                        "schema",
	"not_mapping":                  "schema",
	"nul_byte":                     "validate",
	"output_limit_ceiling":         "validate",
	"output_limit_default_ceiling": "validate",
	"paths":                        "schema",
	"profile_fields":               "schema",
	"programs_empty":               "schema",
	"registry":                     "validate",
	"repeat":                       "schema",
	"sizes":                        "schema",
	"syntax":                       "yaml",
	"syntax_indent":                "yaml",
	"syntax_colon_value":           "yaml",
	"syntax_dash":                  "yaml",
	"syntax_no_colon":              "yaml",
	"syntax_quote":                 "yaml",
	"syntax_tab":                   "yaml",
	"file_typo":                    "validate",
	"unknown_keys":                 "schema",
	"misspelt_required":            "schema",
	"unknown_profile":              "schema",
	"unpinned_image":               "schema",
	"untracked":                    "validate",
	"version":                      "schema",
	"version_missing":              "schema",
	"version_unsupported":          "schema",
	"wrong_types":                  "schema",
}

// TestSchemaAgreesOnErrSpecs: the loader refuses every golden error spec
// (TestGoldenErr); the schema must refuse the ones whose mistakes it
// describes, and accept the ones only behaves validate can judge.
func TestSchemaAgreesOnErrSpecs(t *testing.T) {
	t.Parallel()
	specs, err := filepath.Glob(filepath.Join("testdata", "spec", "err", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no err specs: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range specs {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		seen[name] = true
		kind, ok := errSpecKinds[name]
		if !ok {
			t.Errorf("%s: not classified in errSpecKinds: say whether the schema refuses it", name)
			continue
		}
		if kind == "yaml" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			err = validateYAML(t, data)
			switch {
			case kind == "schema" && err == nil:
				t.Error("the loader refuses it, the schema accepts it")
			case kind == "validate" && err != nil:
				t.Errorf("only behaves validate should refuse it, but the schema does:\n%v", err)
			}
		})
	}
	for name := range errSpecKinds {
		if !seen[name] {
			t.Errorf("errSpecKinds names %s, which is not in testdata/spec/err", name)
		}
	}
}

// schemaCases are small specs, each wrong in one way the schema
// describes, next to the loader's message for it.
func TestSchemaRefusesWhatTheLoaderRefuses(t *testing.T) {
	t.Parallel()
	const good = `version: 1
profiles:
  py:
    image: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
    command: [python3]
programs:
  - name: hello
    file: ../files/hello.py
    profile: py
    cases:
      - name: one
        expect: {stdout: {equals: hello}}
`
	repo := copyTree(t)
	// withChecker is good with a checker, used by its case.
	withChecker := strings.Replace(strings.Replace(good, "programs:", "checkers: {split: {file: ../files/fizzbuzz.py, profile: py}}\nprograms:", 1),
		"{equals: hello}", "{checker: split}", 1)
	for _, tc := range []struct {
		name, old, new string
	}{
		{"good", "", ""},
		{"unknown top key", "version: 1\n", "version: 1\nextra: 1\n"},
		{"unknown profile key", "command: [python3]", "command: [python3]\n    memory_limit: 1GiB"},
		{"unknown matcher key", "{equals: hello}", "{equals: hello, trim: true}"},
		{"two matchers", "{equals: hello}", "{equals: hello, contains: h}"},
		{"no matcher", "{equals: hello}", "{ignore_case: true}"},
		{"bad normalize", "{equals: hello}", "{equals: hello, normalize: strict}"},
		{"stderr matcher wrong too", "{stdout: {equals: hello}}", "{stderr: {equal: hello}}"},
		{"exit code out of range", "{stdout: {equals: hello}}", "{exit_code: 256}"},
		{"exit code a string", "{stdout: {equals: hello}}", `{exit_code: "0"}`},
		{"file and files", "file: ../files/hello.py", "file: ../files/hello.py\n    files: ../files/*.py"},
		{"neither file nor files", "    file: ../files/hello.py\n", ""},
		{"stdin and stdin_file", "- name: one", "- name: one\n        stdin: x\n        stdin_file: ../files/a.txt"},
		{"decimal size", "command: [python3]", "command: [python3]\n    memory: 64MB"},
		{"duration without unit", "command: [python3]", `command: [python3]` + "\n    timeout: \"5\""},
		{"root user", "command: [python3]", `command: [python3]` + "\n    user: \"0:0\""},
		{"user name", "command: [python3]", `command: [python3]` + "\n    user: nobody"},
		{"zero pids", "command: [python3]", "command: [python3]\n    pids: 0"},
		{"empty command", "command: [python3]", "command: []"},
		{"empty executable", "command: [python3]", `command: [""]`},
		{"unpinned image", "image: sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "image: python:3.12"},
		{"bad env name", "command: [python3]", "command: [python3]\n    env: {1A: x}"},
		{"program_name with a slash", "command: [python3]", "command: [python3]\n    program_name: a/b"},
		{"program_name ..", "command: [python3]", "command: [python3]\n    program_name: .."},
		{"args not strings", "- name: one", "- name: one\n        args: [1]"},
		{"empty case name", "- name: one", `- name: " "`},
		{"case name with a tab", "- name: one", `- name: "a\tb"`},
		{"no cases", "    cases:\n      - name: one\n        expect: {stdout: {equals: hello}}\n", "    cases: []\n"},
		{"version 2", "version: 1", "version: 2"},
		{"cpus zero", "command: [python3]", "command: [python3]\n    cpus: 0"},
		{"bad runtime", "command: [python3]", "command: [python3]\n    runtime: run sc"},
		{"relative tmpfs path", "command: [python3]", "command: [python3]\n    tmpfs: {tmp: 1MiB}"},
		{"tmpfs size in MB", "command: [python3]", "command: [python3]\n    tmpfs: {/tmp: 1MB}"},
		{"version 1.5", "version: 1", "version: 1.5"},
		{"placeholder in a run command", "command: [python3]", `command: [python3, "{program}"]`},
		{"braces in a run command", "command: [python3]", `command: [python3, "{print $1}"]`},
		{"placeholder placed", "command: [python3]", `command: [/build/main]` + "\n    build: {command: [g++, -o, /build/main, \"{program}\", -lcrypto]}"},
		{"placeholder twice", "command: [python3]", `command: [/build/main]` + "\n    build: {command: [g++, \"{program}\", \"{program}\"]}"},
		{"placeholder inside an argument", "command: [python3]", `command: [/build/main]` + "\n    build: {command: [sh, -c, \"g++ {program}\"]}"},
		{"a checker", "programs:", "checkers: {split: {file: ../files/fizzbuzz.py, profile: py}}\nprograms:"},
		{"a checker without profile", "programs:", "checkers: {split: {file: ../files/fizzbuzz.py}}\nprograms:"},
		{"a checker without file", "programs:", "checkers: {split: {profile: py}}\nprograms:"},
		{"a checker with entry and file", "programs:", "checkers: {split: {file: ../files/fizzbuzz.py, entry: fizzbuzz.py, profile: py}}\nprograms:"},
		{"a checker's bad name", "programs:", "checkers: {\"a b\": {file: ../files/fizzbuzz.py, profile: py}}\nprograms:"},
		{"answer on equals", "{equals: hello}", "{equals: hello, answer: hello}"},
		{"checked", "", withChecker},
		{"checked, an answer", "", strings.Replace(withChecker, "{checker: split}", "{checker: split, answer: hello}", 1)},
		{"checked, answer and answer_file", "", strings.Replace(withChecker, "{checker: split}", "{checker: split, answer: x, answer_file: ../files/a.txt}", 1)},
		{"checked, and equals", "", strings.Replace(withChecker, "{checker: split}", "{checker: split, equals: x}", 1)},
		{"checked, ignore_case", "", strings.Replace(withChecker, "{checker: split}", "{checker: split, ignore_case: true}", 1)},
		{"checked, in a list", "", strings.Replace(withChecker, "{checker: split}", "[{checker: split}, {contains: x}]", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := good
			if tc.old == "" && tc.new != "" {
				spec = tc.new
			}
			if tc.old != "" {
				if !strings.Contains(spec, tc.old) {
					t.Fatalf("%q is not in the spec", tc.old)
				}
				spec = strings.Replace(spec, tc.old, tc.new, 1)
			}

			path := filepath.Join(repo, "ok", "schema-"+strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
				t.Fatal(err)
			}
			_, lerr := Load(path, Options{})
			serr := validateYAML(t, []byte(spec))
			if (lerr == nil) != (serr == nil) {
				t.Errorf("loader: %v\nschema: %v", lerr, serr)
			}
			if tc.name == "good" && lerr != nil {
				t.Fatalf("the base spec is not valid: %v", lerr)
			}
		})
	}
}

func TestYAMLToJSON(t *testing.T) {
	t.Parallel()
	got, err := yamlToJSON([]byte("a: 1\nb: 1.5\nc: .inf\nd: '1'\ne: true\nf: ~\ng: [x]\nh: 0x10\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": json.Number("1"), "b": json.Number("1.5"), "c": ".inf", "d": "1", "e": true, "f": nil, "g": []any{"x"}, "h": json.Number("16")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
