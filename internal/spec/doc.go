// Package spec owns the behaves.yml format: it loads a spec file, validates
// every value against the documented rules and ceilings, reads the program
// and stdin files it names (inside the repository root only), and keeps the
// file:line:col of every entry so that reports can point back at it. It
// returns every problem at once.
package spec
