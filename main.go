// Command behaves judges whether programs behave as intended for given
// inputs by running each input in a fresh, hardened Docker container.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/runner"
	"github.com/behaves-dev/behaves/internal/runner/docker"
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

	os.Exit(cli.Main(ctx, os.Args[1:], cli.Env{
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		Terminal: isTerminal(os.Stderr),
		Cleanup:  cleanup,
		NewSandbox: func(ctx context.Context, runID string) (runner.Sandbox, io.Closer, error) {
			sb, err := docker.New(ctx, docker.Options{RunID: runID, Cleanup: cleanup})
			if err != nil {
				return nil, nil, err
			}
			return sb, sb, nil
		},
	}))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
