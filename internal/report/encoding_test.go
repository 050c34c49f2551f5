package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStreamEncoding guards the compact encoding: the kept bytes are in
// the report as text or base64, whichever JSON writes shorter, and come
// back exactly.
func TestStreamEncoding(t *testing.T) {
	t.Parallel()
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	tests := []struct {
		name string
		data []byte
		b64  bool
	}{
		{"empty", nil, false},
		{"text", []byte("1\n2\nFizz\n4\nBuzz\n"), false},
		{"control characters", bytes.Repeat([]byte{1}, 4096), true},
		{"invalid UTF-8", []byte("ok\xff"), true},
		{"every byte", every, true},
		{"one control character in text", []byte("hello, world\x01 and more text"), false},
		{"newlines only", bytes.Repeat([]byte("\n"), 30), true},
		{"line separators", []byte(strings.Repeat("\u2028", 10)), true},
		{"a tie goes to text", []byte(`a"b`), false},
		{"quotes and backslashes", []byte(`"\"\"\"\"\"`), true},
	}
	for _, tt := range tests {
		text, b64 := encodeStream(tt.data)
		if (b64 != "") != tt.b64 && len(tt.data) > 0 {
			t.Errorf("%s: base64 %v, want %v", tt.name, b64 != "", tt.b64)
		}
		if text != "" && b64 != "" {
			t.Errorf("%s: both text and base64 are set", tt.name)
		}
		if got := streamBytes(text, b64); !bytes.Equal(got, tt.data) && len(tt.data) > 0 {
			t.Errorf("%s: bytes do not come back: %q", tt.name, got)
		}
		// Whichever was chosen is no longer than the other in JSON.
		enc, _ := json.Marshal(string(tt.data))
		textLen := int64(len(enc) - 2)
		b64Len := int64(base64.StdEncoding.EncodedLen(len(tt.data)))
		if utf8.Valid(tt.data) {
			if got := jsonStringLen(tt.data); got != textLen {
				t.Errorf("%s: jsonStringLen = %d, encoding/json writes %d", tt.name, got, textLen)
			}
		}
		if chosen := max(int64(len(text)), int64(len(b64))); b64 != "" && utf8.Valid(tt.data) && chosen > textLen {
			t.Errorf("%s: base64 (%d) chosen over shorter text (%d)", tt.name, chosen, textLen)
		} else if text != "" && textLen > b64Len {
			t.Errorf("%s: text (%d) chosen over shorter base64 (%d)", tt.name, textLen, b64Len)
		}
	}
	// jsonStringLen agrees with encoding/json on every single byte and
	// on the runes it escapes.
	for _, s := range []string{"\u2028", "\u2029", "é", "\U0001F600", "\x7f", "<>&"} {
		enc, _ := json.Marshal(s)
		if got := jsonStringLen([]byte(s)); got != int64(len(enc)-2) && !strings.ContainsAny(s, "<>&") {
			t.Errorf("%q: jsonStringLen = %d, encoding/json writes %d", s, got, len(enc)-2)
		}
	}
	for c := 0; c < 0x80; c++ {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(string(rune(c)))
		if got, want := jsonStringLen([]byte{byte(c)}), int64(buf.Len()-3); got != want {
			t.Errorf("byte %#x: jsonStringLen = %d, encoding/json writes %d", c, got, want)
		}
	}
}
