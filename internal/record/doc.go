// Package record owns `behaves record`: it turns what each program did in a
// run into the expectations of the spec's cases, and writes them into the
// spec (and its cases files) in place.
//
// Read takes a loaded spec and reads the files its cases are written in
// (the spec, each YAML or JSON Lines cases_file), finding each case's
// text at the position the spec gives it. Programs says which programs a
// run must run for record to have something to write. Make takes the
// run's report (read back with reportread) and plans the edits: a case
// with no expect gets one, `expect: {exit_code: N, stdout: {equals: "…"}}`
// and a stderr equals when the program wrote any; with Options.Update, an
// expectation the run disproved is rewritten. Diff shows a change as a
// unified diff and Change.Write writes it.
//
// What it never records: an undetermined case, a run stopped by the
// sandbox (a timeout, a memory kill, the output ceiling), output cut at
// the retention limit or left out of the report, runs of one case that
// differ, samples of a files:/dirs: entry that disagree on a case (one
// case text serves every sample), and output a file cannot hold exactly
// (invalid UTF-8, a NUL byte, anything that does not read back as it is).
// Each such case is a Problem naming its file and line. It leaves alone
// same_as cases (their reference is the expectation), cases a checker
// judges (the checker is), the cases an inputs_file makes, and gate: false
// entries unless the caller named them.
//
// Files are edited at the positions yaml.v3 gives the cases (package
// yamledit): every byte outside an edit stays as it was, and each edited
// file is parsed again and compared with the original before it is
// returned. A JSON Lines case gets its "expect" inside its line's object.
//
// Program output is an attacker's text: what this package returns for
// printing (problems, the diff) is plain text the caller prints escaped,
// and the values it writes are escaped to printable characters. It reads
// no environment: the command line decides whether recording is allowed
// (not under GitHub Actions without --force).
package record
