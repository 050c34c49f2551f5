package report

import (
	"reflect"
	"testing"

	"github.com/behaves-dev/behaves/internal/runner"
)

// fill sets every field of v, recursively, to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem())) // not filled: a type may point to itself
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// TestSettingsRoundTrip: every field of the runner's settings (its
// applied settings, its build's, its container block) and limits has a
// place in the report's own types: runner → report → runner loses
// nothing. A field added to the runner's types fails here until the
// report's hold it too (and the schema, docs/behaves.report.schema.json,
// with them).
func TestSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	var s runner.Settings
	fill(reflect.ValueOf(&s).Elem())
	b := runner.Applied{}
	fill(reflect.ValueOf(&b).Elem())
	s.Applied.Build = &b
	if got := SettingsOf(s).Runner(); !reflect.DeepEqual(got, s) {
		t.Errorf("runner → report → runner settings:\n got %+v\nwant %+v", got, s)
	}
	var l runner.Limits
	fill(reflect.ValueOf(&l).Elem())
	if got := LimitsOf(l).Runner(); got != l {
		t.Errorf("limits %+v, want %+v", got, l)
	}
}
