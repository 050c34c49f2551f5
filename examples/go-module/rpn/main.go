// Command rpn evaluates its arguments as an expression in reverse Polish
// notation: `rpn 2 3 +` prints 5. An error goes to stderr with exit code 2;
// after -v, with the call stack pkg/errors recorded where it was made.
package main

import (
	"fmt"
	"os"

	"example.com/rpn/internal/calc"
)

func main() {
	args := os.Args[1:]
	verbose := len(args) > 0 && args[0] == "-v"
	if verbose {
		args = args[1:]
	}
	n, err := calc.Eval(args)
	if err != nil {
		format := "rpn: %v\n"
		if verbose {
			format = "rpn: %+v\n"
		}
		fmt.Fprintf(os.Stderr, format, err)
		os.Exit(2)
	}
	fmt.Println(n)
}
