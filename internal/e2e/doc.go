// Package e2e holds the end-to-end tests: whole `behaves` runs (spec →
// Docker → verdict → report) against the real daemon and the locally built
// images, asserting the verdicts a person would read in the report. It has no
// code of its own.
package e2e
