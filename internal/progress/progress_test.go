package progress

import (
	"bytes"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	var nilLine *Line
	nilLine.Set("nothing")
	nilLine.Clear()

	var buf bytes.Buffer
	l := &Line{w: &buf}
	l.Set("first")
	l.Set("too soon")
	if got := buf.String(); got != "\r\x1b[Kfirst" {
		t.Fatalf("got %q; want one redraw", got)
	}
	l.last = time.Now().Add(-Interval)
	l.Set("second")
	l.Clear()
	l.Clear()
	if got, want := buf.String(), "\r\x1b[Kfirst\r\x1b[Ksecond\r\x1b[K"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
}

func TestNewNotATerminal(t *testing.T) {
	// go test's stderr is a pipe or file, never the terminal the line needs.
	if New(false) != nil || New(true) != nil {
		t.Error("a progress line on a stderr that is not a terminal")
	}
}
