package pin

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/behaves-dev/behaves/internal/yamledit"
)

// TodoComment begins the comment `behaves init` writes after an image it
// could not pin ("# TODO: pin this image: behaves pin --allow-registry
// …"). When pin writes that image's pin, it removes such a comment from
// the end of the image's line, since the comment is then no longer true;
// every other comment stays byte for byte.
const TodoComment = "# TODO: pin this image"

// refChars is what a pinned reference written back may hold: the
// characters of Docker's reference grammar, none of which needs quoting or
// escaping in a plain, single- or double-quoted YAML scalar.
var refChars = regexp.MustCompile(`^[A-Za-z0-9._:/@-]+$`)

// todoRE is an init TODO comment at the end of a line, with the blanks
// before it.
var todoRE = regexp.MustCompile(`^[ \t]+` + regexp.QuoteMeta(TodoComment) + `\b[^\r\n]*`)

// change is one image value to write: the image and its new reference.
type change struct {
	im  Image
	ref string
}

// rewrite returns data with each change's scalar replaced by its new
// reference, in the scalar's own quoting style, and every other byte as it
// was (an init TODO comment after a changed image excepted). The bytes are
// edited in place at the positions yaml.v3 gives the images (package
// yamledit); the result is parsed again and compared node by node, with
// its comments, with data: anything but the changed values (and the
// removed TODO comments) differing is an error, and nothing is returned.
func rewrite(data []byte, changes []change) ([]byte, error) {
	d, err := yamledit.Parse(data)
	if err != nil {
		return nil, err
	}
	edits := make([]yamledit.Edit, 0, len(changes))
	want := map[[2]int]string{}
	for _, c := range changes {
		if !refChars.MatchString(c.ref) {
			return nil, fmt.Errorf("%s: the new reference %q has characters an image reference cannot", c.im.Where(), c.ref)
		}
		start, end, err := d.Scalar(c.im.node)
		if err != nil {
			return nil, fmt.Errorf("%s at line %d: %w: write it on one line, as name:tag", c.im.Where(), c.im.Line, err)
		}
		text := c.ref
		switch data[start] {
		case '"', '\'':
			text = string(data[start]) + c.ref + string(data[start])
		}
		if m := todoRE.Find(data[end:]); m != nil {
			end += len(m)
		}
		edits = append(edits, yamledit.Edit{Start: start, End: end, Text: text})
		want[[2]int{c.im.node.Line, c.im.node.Column}] = c.ref
	}
	out, err := yamledit.Apply(data, edits)
	if err == nil {
		err = same(d, out, want)
	}
	if err != nil {
		return nil, fmt.Errorf("the rewritten spec does not read back as the original with only the images changed (%v): nothing was written", err)
	}
	return out, nil
}

// same checks that after parses as before did (d) except for the values
// in want (the new value by the line and column of the old one) and an
// init TODO comment after them; every other comment is as it was.
func same(d *yamledit.Doc, after []byte, want map[[2]int]string) error {
	b, err := yamledit.Parse(after)
	if err != nil {
		return err
	}
	return yamledit.Compare(d.Document, b.Document, func(x, y *yaml.Node) (bool, error) {
		if x.HeadComment != y.HeadComment || x.FootComment != y.FootComment {
			return true, fmt.Errorf("a comment near line %d changed", x.Line)
		}
		value, changed := want[[2]int{x.Line, x.Column}]
		if !changed || x.Kind != yaml.ScalarNode {
			if x.LineComment != y.LineComment {
				return true, fmt.Errorf("the comment on line %d changed", x.Line)
			}
			return false, nil // Compare checks the rest
		}
		if y.Kind != x.Kind || y.Tag != x.Tag || y.Style != x.Style || y.Value != value {
			return true, fmt.Errorf("the value at line %d reads %q, want %q", x.Line, y.Value, value)
		}
		if x.LineComment != y.LineComment && !(y.LineComment == "" && strings.HasPrefix(x.LineComment, TodoComment)) {
			return true, fmt.Errorf("the comment on line %d changed", x.Line)
		}
		return true, nil
	})
}
