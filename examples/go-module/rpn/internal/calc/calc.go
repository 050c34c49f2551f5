// Package calc evaluates expressions in reverse Polish notation. Its errors
// come from github.com/pkg/errors (vendored), which records the call stack
// where each error is made.
package calc

import (
	"strconv"

	"github.com/pkg/errors"
)

// Eval evaluates tokens (["2", "3", "+"]) and returns the one number left
// on the stack.
func Eval(tokens []string) (int, error) {
	var stack []int
	for i, tok := range tokens {
		op, ok := ops[tok]
		if !ok {
			n, err := strconv.Atoi(tok)
			if err != nil {
				return 0, errors.Wrapf(err, "token %d", i+1)
			}
			stack = append(stack, n)
			continue
		}
		if len(stack) < 2 {
			return 0, errors.Errorf("token %d: %q needs two numbers", i+1, tok)
		}
		a, b := stack[len(stack)-2], stack[len(stack)-1]
		stack = append(stack[:len(stack)-2], op(a, b))
	}
	if len(stack) != 1 {
		return 0, errors.Errorf("%d numbers left, want 1", len(stack))
	}
	return stack[0], nil
}

var ops = map[string]func(a, b int) int{
	"+": func(a, b int) int { return a + b },
	"-": func(a, b int) int { return a - b },
	"*": func(a, b int) int { return a * b },
}
