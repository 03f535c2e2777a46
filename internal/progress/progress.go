// Package progress keeps one status line on a terminal's stderr up to date
// while a run goes on, and wipes it before anything else is printed. It is a
// few lines of ANSI rather than a progress-bar library because a single line
// redrawn a few times a second is all thruput shows, and it must cost nothing
// inside the measured loops.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Interval between redraws.
const Interval = 250 * time.Millisecond

// Line is a status line; the zero of *Line (nil) prints nothing, so callers
// need not check whether progress is wanted.
type Line struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	shown bool
}

// New returns a Line on stderr if stderr is a terminal and quiet is false,
// else nil.
func New(quiet bool) *Line {
	if quiet || !term.IsTerminal(int(os.Stderr.Fd())) {
		return nil
	}
	return &Line{w: os.Stderr}
}

// Set redraws the line with s, at most once per Interval.
func (l *Line) Set(s string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); now.Sub(l.last) >= Interval {
		l.last = now
		l.shown = true
		_, _ = io.WriteString(l.w, "\r\x1b[K"+s)
	}
}

// Clear wipes the line so the next output starts on a clean row.
func (l *Line) Clear() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		_, _ = io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}
