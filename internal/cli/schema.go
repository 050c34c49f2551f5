package cli

import (
	"flag"
	"fmt"

	"github.com/behaves-dev/behaves/internal/spec"
)

// schemaCommand is `behaves schema`: it prints the spec's JSON Schema
// (draft 2020-12) for editors, the same document as
// docs/behaves.schema.json.
func schemaCommand(args []string, env Env) int {
	fs := flag.NewFlagSet("schema", flag.ContinueOnError)
	if !parse(fs, args, env) {
		return ExitUsage
	}
	data, err := spec.Schema()
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
