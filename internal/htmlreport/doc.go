// Package htmlreport renders a report as one self-contained HTML page for
// people to look at: the verdict counts and a bar, filters by verdict and
// by program, expected next to actual output with the differing lines
// marked, and pass@k tables for the spec's files: entries.
//
// The page makes no request of its own: its one style sheet and its one
// script are inline, and a Content-Security-Policy meta tag (default-src
// 'none') admits them by their SHA-256 hashes only, computed from the
// exact bytes embedded here. Everything the report says is untrusted (a
// pull request wrote the programs, the spec and possibly the report
// itself): it reaches the page only through html/template's escaping, as
// text, never in the script; control bytes, invalid UTF-8 and invisible or
// bidi runes are shown as visible escapes.
//
// The page is bounded whatever the report's size: each side of a diff is
// an excerpt, the excerpts of the whole page share one budget, and the
// diff (Myers' O(ND)) gives up at a bounded number of edits. Without
// JavaScript everything is visible; the script adds the filters and pages
// the list of programs, in linear time.
//
// It reads a report and nothing else: a test keeps its imports to report,
// verdict, linediff and the standard library (the evidence types reach it
// through verdict, never runner directly).
package htmlreport
