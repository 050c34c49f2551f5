package cli

import (
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/reportschema"
	"github.com/behaves-dev/behaves/internal/spec"
)

var schemaHelp = commandHelp{
	args:  "[--report]",
	about: "Prints the spec's JSON Schema (draft 2020-12), the same document as\ndocs/behaves.schema.json, for editors; with --report, the report's.",
	exits: "0 printed · 2 usage · 4 the schema could not be written",
}

// schemaCommand is `behaves schema`: it prints the spec's JSON Schema
// (draft 2020-12) for editors, the same document as
// docs/behaves.schema.json; with --report, the report's, for its readers,
// the same document as docs/behaves.report.schema.json.
func schemaCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	ofReport := fs.Bool("report", false, "print the report's schema (behaves.report/v1) instead of the spec's")
	if !parse(fs, args, env) {
		return ExitUsage
	}
	schema := spec.Schema
	if *ofReport {
		schema = reportschema.Published
	}
	data, err := schema()
	if err != nil {
		fmt.Fprintf(env.Stderr, "behaves schema: %v\n", err)
		return ExitRunFailed
	}
	if _, err := env.Stdout.Write(data); err != nil {
		fmt.Fprintf(env.Stderr, "behaves schema: %v\n", err)
		return ExitRunFailed
	}
	return ExitTrue
}
