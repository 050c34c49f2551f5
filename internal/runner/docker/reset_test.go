package docker

import (
	"bytes"
	"errors"
	"io"
	"net"
	"path/filepath"
	"syscall"
	"testing"
)

// TestResetAtCloseOfAUnixSocket checks the kernel behaviour resetAtClose
// relies on, on a real Unix socket: a peer that wrote its output and then
// closed with bytes of ours unread (a program that exited without
// reading all of its stdin) gives this side every byte it wrote, then
// ECONNRESET instead of end-of-file; resetAtClose takes that for an end.
// A reset over TCP is not taken for one.
func TestResetAtCloseOfAUnixSocket(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "engine.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	output := bytes.Repeat([]byte("output "), 10_000)
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 16)
		io.ReadFull(c, buf) // reads a little of the stdin, not all of it
		c.Write(output)
		c.Close()
	}()
	conn, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write(bytes.Repeat([]byte("stdin "), 10_000)) // more than the peer reads
	<-closed
	got, err := io.ReadAll(conn)
	if !bytes.Equal(got, output) {
		t.Fatalf("read %d bytes of the %d the peer wrote before closing (err %v)", len(got), len(output), err)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Skipf("the kernel ended the stream with %v, not a reset: nothing to check here", err)
	}
	if !resetAtClose(conn, err) {
		t.Errorf("resetAtClose(%v) = false on a Unix socket after the whole output", err)
	}

	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	tc, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	if resetAtClose(tc, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}) {
		t.Errorf("resetAtClose took a TCP reset for an end")
	}
}
