// Package lifecycle is the life of one run around its measuring: the document
// it starts with (New), the machine it runs on (Begin, then Attach), its
// status from the error that ended it (Conclude), the last comparable run
// it is set against (Previous), and keeping it: saved into the store, or
// spooled when the store cannot take it, and delivered later (History,
// Push). The commands in cmd/thruput call these verbs in this order;
// the engines that measure know none of them.
package lifecycle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// New starts the result of one run of method made by tool from the
// command line argv.
func New(tool result.Tool, method result.Method, argv []string) *result.Document {
	return &result.Document{
		FormatVersion: result.FormatVersion,
		Tool:          tool,
		ID:            NewID(),
		Method:        method,
		Argv:          argv,
		StartedAt:     time.Now().UTC(),
		Host:          sysinfo.Default().Host(),
	}
}

// NewID is a run id: sortable by time and unique across machines sharing
// a target.
func NewID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// Conclude ends a run the same way for every method: its end and status
// from the error that ended it (Finish), then its machine context
// (Attach).
func Conclude(doc *result.Document, err error, b *Begun) {
	Finish(doc, err)
	Attach(doc, b)
}

// Finish stamps the end of a run and its status from the error that
// ended it: none is ok, an interrupt (ctx canceled) is interrupted, any
// other is partial when the run measured something and failed when not.
func Finish(doc *result.Document, err error) {
	doc.EndedAt = time.Now().UTC()
	switch {
	case err == nil:
		doc.Status = result.StatusOK
		return
	case errors.Is(err, context.Canceled):
		doc.Status = result.StatusInterrupted
	case doc.Measured():
		doc.Status = result.StatusPartial
	default:
		doc.Status = result.StatusFailed
	}
	doc.Error = err.Error()
}
