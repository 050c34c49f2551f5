// Package doccheck holds the test that the README and docs/ link where
// they say: every relative link names a file that exists, and every
// #anchor a heading of its page. It has no code of its own: the README is
// the landing page and the reference lives in docs/, so a moved section
// must not leave a link to nowhere.
package doccheck
