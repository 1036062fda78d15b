package sessions

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// TakesWriters reports that the tmux runner copies a session's output
// into the writers of RunnerLaunch (held to their cap) too: tmux's copy of
// the pane goes through a FIFO the runner reads.
func (*TmuxRunner) TakesWriters() bool { return true }

// transcriptDrain is how long, after the pane is gone, the runner keeps
// reading what tmux's copy left in the FIFO.
const transcriptDrain = 300 * time.Millisecond

// transcriptQuiet is how long the FIFO must stay empty, once the pane's
// process has ended, before the runner ends the tmux session: tmux copies
// the pane's last output after the process is gone, later on a loaded
// machine. transcriptSettleMax bounds that wait.
const (
	transcriptQuiet     = 500 * time.Millisecond
	transcriptSettleMax = 10 * time.Second
)

// transcriptPipe is the FIFO tmux's pipe-pane writes a session's output
// to, copied into the session's capped transcript.
type transcriptPipe struct {
	path   string
	f      *os.File
	copied chan struct{}
	last   atomic.Int64 // when the copy last read something, Unix nanoseconds
}

// openTranscriptPipe makes the FIFO at path and copies what is written to
// it into out until close. The FIFO is opened for reading and writing, so
// opening never waits for tmux and the copy sees no end of file between
// writers.
func openTranscriptPipe(path string, out io.Writer) (*transcriptPipe, error) {
	_ = os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, fmt.Errorf("the transcript's pipe: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("the transcript's pipe: %w", err)
	}
	p := &transcriptPipe{path: path, f: f, copied: make(chan struct{})}
	p.last.Store(time.Now().UnixNano())
	go func() {
		defer close(p.copied)
		buf := make([]byte, 32<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				p.last.Store(time.Now().UnixNano())
				_, _ = out.Write(buf[:n])
			}
			if err != nil {
				return // closed, or the drain's deadline passed
			}
		}
	}()
	return p, nil
}

// settle waits until nothing has come through the FIFO for
// transcriptQuiet (at most transcriptSettleMax), so what tmux still had to
// copy reaches the transcript before its session is ended. Nil-safe.
func (p *transcriptPipe) settle() {
	if p == nil {
		return
	}
	deadline := time.Now().Add(transcriptSettleMax)
	for time.Now().Before(deadline) {
		idle := time.Since(time.Unix(0, p.last.Load()))
		if idle >= transcriptQuiet {
			return
		}
		time.Sleep(transcriptQuiet - idle)
	}
}

// close reads what is left in the FIFO (until it stays empty for
// transcriptDrain), then stops the copy and removes the FIFO. Nil-safe.
func (p *transcriptPipe) close() {
	if p == nil {
		return
	}
	if err := p.f.SetReadDeadline(time.Now().Add(transcriptDrain)); err != nil {
		// Not pollable here: a pending read cannot be cut short, so the
		// copy is left to end on the closed file.
		_ = p.f.Close()
		_ = os.Remove(p.path)
		return
	}
	<-p.copied
	_ = p.f.Close()
	_ = os.Remove(p.path)
}
