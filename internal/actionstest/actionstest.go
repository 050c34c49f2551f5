// Package actionstest owns reading a log the way the GitHub Actions runner
// reads a step's output, so that tests can prove that nothing behaves prints
// becomes a workflow command. It is imported only by tests.
package actionstest

import (
	"fmt"
	"strings"
	"unicode"
)

// Command is a line of a log that the runner would act on: the command's
// name, its data (for stop-commands, the token) and the whole line.
type Command struct {
	Name string
	Data string
	Text string
}

// Commands reads log as the Actions runner reads a step's output
// (actions/runner: ActionCommandManager.TryProcessCommand with
// ActionCommand.TryParseV2 and the legacy TryParse) and returns the commands
// it would process: every line whose left-trimmed text starts with "::", and
// every line holding "##[" anywhere, outside the regions that
// "::stop-commands::TOKEN" opens and a command named TOKEN ("::TOKEN::" or
// "##[TOKEN]") closes. The stop-commands line and its resume are returned
// too. It errs on the side of finding commands: it splits lines on CR, LF
// and the Unicode line separators, trims any Unicode space, and counts a
// "::" line even without the second "::" or a registered name.
func Commands(log string) []Command {
	lines := strings.FieldsFunc(log, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029'
	})
	var cmds []Command
	token := ""
	for _, line := range lines {
		name, data, ok := "", "", false
		if t := strings.TrimLeftFunc(line, unicode.IsSpace); strings.HasPrefix(t, "::") {
			info, rest, _ := strings.Cut(t[2:], "::")
			name, _, _ = strings.Cut(info, " ")
			data, ok = rest, true
		} else if _, rest, found := strings.Cut(line, "##["); found {
			info, after, _ := strings.Cut(rest, "]")
			name, _, _ = strings.Cut(info, " ")
			data, ok = after, true
		}
		if !ok {
			continue
		}
		if token != "" {
			if strings.EqualFold(name, token) {
				cmds = append(cmds, Command{Name: name, Text: line})
				token = ""
			}
			continue
		}
		cmds = append(cmds, Command{Name: name, Data: data, Text: line})
		if name == "stop-commands" && data != "" {
			token = data
		}
	}
	return cmds
}

// CheckInert returns an error naming the first command in log that the
// runner would act on, other than stop-commands regions behaves opens with
// a token of at least 16 characters and closes again.
func CheckInert(log string) error {
	cmds := Commands(log)
	for i := 0; i < len(cmds); i++ {
		c := cmds[i]
		if c.Name != "stop-commands" || len(c.Data) < 16 {
			return fmt.Errorf("the runner would act on %q", c.Text)
		}
		if i+1 == len(cmds) {
			return fmt.Errorf("the region %q is never closed", c.Text)
		}
		i++
		if !strings.EqualFold(cmds[i].Name, c.Data) {
			return fmt.Errorf("the runner would act on %q", cmds[i].Text) // unreachable: Commands pairs them
		}
	}
	return nil
}
