package sessions

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/the-loop/the-loop/agents/harness"
	"github.com/the-loop/the-loop/store"
)

// live is one running session.
type live struct {
	rec    store.Session
	h      Handle
	meter  *harness.Meter
	offset int64
	saved  harness.Usage // last figures written to the store
	// price estimates the cost of the figures read so far.
	price func(harness.Usage) harness.Usage
	// warned: the unknown event types of the output were logged.
	warned bool
	// stopState and stopReason are recorded when a stopped session ends.
	stopState  string
	stopReason string
	// leftAt is when the item left the session's node (zero = it has not).
	leftAt time.Time
	// own is true for a pull request's session of its own.
	own bool
	// out and errw hold the transcript and stderr to their cap (nil: the
	// runner writes the files itself); box is a confined session's (nil:
	// unconfined).
	out, errw *capped
	box       *box
	// workdir is where the session works; head the commit its tree stood
	// on at launch ("" when it could not be read).
	workdir, head string
	// end is set once the session ended: what to record (nil: running).
	end *ending
}

// ending is the record of a session's end, kept until it is written.
type ending struct {
	rec store.Session
	evs []store.Event
}

// release revokes a confined session's capability and closes its output
// files, once it has ended.
func (l *live) release() {
	l.box.close()
	l.box = nil
	if l.out != nil {
		_ = l.out.Close()
		_ = l.errw.Close()
	}
}

// cut is how many bytes were cut from the transcript's head.
func (l *live) cut() int64 {
	if l.out == nil {
		return 0
	}
	return l.out.Dropped()
}

// want describes the session as the want it serves.
func (l *live) want() Want {
	return Want{Repo: l.rec.Repo, WorkItem: l.rec.WorkItem, Node: l.rec.Node, PR: l.rec.PR, PRRepo: l.rec.PRRepo, Own: l.own}
}

func (l *live) status() Status {
	st := Status{Session: l.rec.ID, Repo: l.rec.Repo, WorkItem: l.rec.WorkItem, Node: l.rec.Node, PR: l.rec.PR, PRRepo: l.rec.PRRepo, Own: l.own, Harness: l.rec.Harness,
		Runner: l.rec.Runner, PID: l.rec.PID, Attempt: l.rec.Attempt, StartedAt: l.rec.StartedAt, State: store.SessionRunning,
		Usage: l.usage(), Transcript: l.rec.Transcript, Attach: l.rec.Attach}
	if l.stopState != "" {
		st.Reason = "stopping: " + l.stopReason
	}
	return st
}

// stop ends the session, remembering what to record when it has ended.
func (l *live) stop(state, reason string, grace time.Duration) {
	if l.stopState != "" {
		return
	}
	l.stopState, l.stopReason = state, reason
	l.h.Stop(grace)
}

// readChunk bounds one read of a transcript.
const readChunk = 1 << 20

// readUsage feeds the transcript's new bytes to the meter. A missing
// transcript reads as empty.
func (l *live) readUsage() error {
	if l.out != nil {
		next, _, err := l.out.readFrom(l.offset, func(b []byte) { _, _ = l.meter.Write(b) })
		l.offset = next
		return err
	}
	fi, err := os.Stat(l.rec.Transcript)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Size() <= l.offset {
		return nil
	}
	f, err := os.Open(l.rec.Transcript)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return err
	}
	buf := make([]byte, min(readChunk, fi.Size()-l.offset))
	for l.offset < fi.Size() {
		n, err := f.Read(buf)
		if n > 0 {
			_, _ = l.meter.Write(buf[:n])
			l.offset += int64(n)
		}
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// usage is the figures read so far, their cost estimated where the CLI
// reports none.
func (l *live) usage() harness.Usage {
	u := l.meter.Usage()
	if l.price != nil {
		u = l.price(u)
	}
	return u
}

// usageChanged reports whether the figures moved since they were saved.
func (l *live) usageChanged() bool {
	u := l.usage()
	return u.Turns != l.saved.Turns || u.Tokens() != l.saved.Tokens() || u.CostUSD != l.saved.CostUSD || u.Cost != l.saved.Cost ||
		u.HarnessSession != l.saved.HarnessSession || u.Result != l.saved.Result || u.Error != l.saved.Error
}
