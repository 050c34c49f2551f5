// Command behaves judges whether programs behave as intended for given
// inputs by running each input in a fresh, hardened Docker container.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/behaves-dev/behaves/internal/cli"
)

func main() {
	// The first SIGINT/SIGTERM stops the run (no new cases; running ones are
	// killed and removed); a second abandons cleanup so that behaves exits
	// right after writing the report.
	ctx, stop := context.WithCancel(context.Background())
	cleanup, abandon := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		stop()
		<-sigs
		abandon()
	}()

	os.Exit(cli.Main(ctx, cli.Args(os.Args), cli.Env{
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		Getenv:         os.Getenv,
		Terminal:       isTerminal(os.Stderr),
		StdoutTerminal: isTerminal(os.Stdout),
		Cleanup:        cleanup,
		NewSandbox:     cli.DockerSandbox(cleanup),
		NewSweeper:     cli.DockerSweeper,
	}))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
