package reportwrite

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/behaves-dev/behaves/internal/report"
)

// TestWriteStream guards the streamed output against encoding/json: the
// spool writes each stream as Encode would write the string Event.SetOutput makes.
func TestWriteStream(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", "\n", "\t", "\r", "\"", "\\", "<", ">", "&", "\x01", "\x1f", "\x7f", "\b", "\f", "é", "€", "\u2028", "\u2029", "😀", "\xff"}
	inputs := [][]byte{nil, []byte("plain"), bytes.Repeat([]byte{1}, 100)}
	for n := 0; n < 2000; n++ {
		var b []byte
		for k := rng.IntN(64); k > 0; k-- {
			// Mostly letters, so that text wins often.
			if rng.IntN(4) > 0 {
				b = append(b, 'a'+byte(rng.IntN(26)))
			} else {
				b = append(b, alphabet[rng.IntN(len(alphabet))]...)
			}
		}
		inputs = append(inputs, b)
	}
	texts := 0
	for _, b := range inputs {
		var e report.Event
		e.SetOutput(b, nil) // the stream as the report holds it
		text, b64 := e.Stdout, e.StdoutBase64
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(text + b64); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeStream(&got, b); err != nil {
			t.Fatal(err)
		}
		if w := want.String(); got.String() != w[1:len(w)-2] {
			t.Fatalf("%q: wrote %s, encoding/json %s", b, got.String(), w)
		}
		if int64(got.Len()) != report.EncodedLen(b) {
			t.Fatalf("%q: wrote %d bytes, EncodedLen says %d", b, got.Len(), report.EncodedLen(b))
		}
		if text != "" {
			texts++
		}
	}
	if texts < 100 || texts > len(inputs)-100 {
		t.Errorf("%d of %d inputs went as text: the test does not cover both encodings", texts, len(inputs))
	}
}
