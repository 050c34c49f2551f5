//go:build ignore

// A program behaves judges, not part of behaves: the constraint keeps it
// out of behaves' own module; a file named on go build's command line is
// built whatever its constraints.

package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	total := 0
	for _, a := range os.Args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		total += n
	}
	fmt.Println(total)
}
