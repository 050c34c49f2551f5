// Package reportschema owns the JSON Schema of the report
// (behaves.report/v1, draft 2020-12): what docs/behaves.report.schema.json
// holds and `behaves schema --report` prints, for the readers of reports
// (dashboards, eval pipelines, publish in another job).
//
// It is generated from report.Report's Go types, so it describes every
// member a report has. v1 grows by additions (docs/verdicts.md): the
// published schema accepts members it does not name and requires none,
// so that a reader validating an earlier or a later report is not
// refused. The strict copy (Strict) names every member as required and
// admits nothing else: the tests validate every report they write
// against it, so a change to the JSON that the schema does not describe
// fails a test.
package reportschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/behaves-dev/behaves/internal/report"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// ID is the published schema's $id: where the repository publishes it.
const ID = "https://raw.githubusercontent.com/behaves-dev/behaves/main/docs/behaves.report.schema.json"

// Published is the schema readers validate reports with: every member
// described, none required, others allowed (v1 grows by additions).
func Published() ([]byte, error) { return build(false) }

// Strict is the schema the tests validate the reports they write with:
// every member required, no other member allowed.
func Strict() ([]byte, error) { return build(true) }

// enums are the string values of the types whose values are a closed set.
var enums = map[reflect.Type][]string{
	reflect.TypeFor[verdict.Verdict](): {"true", "false", "undetermined"},
}

func build(strict bool) ([]byte, error) {
	g := &generator{strict: strict, defs: map[string]any{}}
	root := g.object(reflect.TypeFor[report.Report]())
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = ID
	root["title"] = "behaves report (" + report.Schema + ")"
	root["description"] = "The JSON report of one behaves run; docs/verdicts.md describes each member."
	root["$defs"] = g.defs
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encoding the report schema: %w", err)
	}
	return buf.Bytes(), nil
}

// generator turns Go types into schemas as encoding/json writes them.
type generator struct {
	strict bool
	defs   map[string]any
}

// def is a $ref to t's object schema, made once under t's name.
func (g *generator) def(t reflect.Type) map[string]any {
	name := t.Name()
	if name == "" {
		return g.object(t)
	}
	if pkg := t.PkgPath(); !strings.HasSuffix(pkg, "/report") {
		name = pkg[strings.LastIndex(pkg, "/")+1:] + "." + name
	}
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = nil // recursion guard
		g.defs[name] = g.object(t)
	}
	return map[string]any{"$ref": "#/$defs/" + name}
}

// object is the schema of struct t: its members (an embedded struct's
// flattened into it, as encoding/json does).
func (g *generator) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	g.members(t, props)
	obj := map[string]any{"type": "object", "properties": props}
	if g.strict {
		obj["additionalProperties"] = false
		obj["required"] = slices.Sorted(maps.Keys(props))
	}
	return obj
}

func (g *generator) members(t reflect.Type, props map[string]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			g.members(f.Type, props)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = g.schema(f.Type)
	}
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// schema is the schema of a value of type t as encoding/json writes it.
func (g *generator) schema(t reflect.Type) map[string]any {
	if e, ok := enums[t]; ok {
		return map[string]any{"type": "string", "enum": e}
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Implements(textMarshaler):
		return map[string]any{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := g.schema(t.Elem())
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	case reflect.Struct:
		return g.def(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Interface:
		return map[string]any{}
	}
	panic(fmt.Sprintf("reportschema: no schema for %s", t))
}
