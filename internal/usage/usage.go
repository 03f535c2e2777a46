// Package usage marks errors that are the user's to fix (a bad flag, a target
// that cannot be used) so that main can exit with status 2 for them and 1 for
// a measurement that failed.
package usage

import (
	"errors"
	"fmt"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
)

// Error is a usage error: the message says what to change.
type Error struct{ err error }

func (e *Error) Error() string { return e.err.Error() }
func (e *Error) Unwrap() error { return e.err }

// Errorf formats a usage error; %w wraps as in fmt.Errorf.
func Errorf(format string, a ...any) error {
	return &Error{fmt.Errorf(format, a...)}
}

// Wrap marks err as a usage error; nil stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{err}
}

// Is reports whether err, or anything it wraps, is a usage error.
func Is(err error) bool {
	var u *Error
	return errors.As(err, &u)
}

// Invalid is a parameter an engine refused. Its message names the
// parameters at fault by their config fields, written {Field} in the
// format, so that an engine need not know whether they came from flags, a
// suite plan or a test; the command that set them renders the message with
// its own names for them (Named). Printed as it is, each field reads as
// its name.
type Invalid struct {
	format string
	args   []any
}

// Invalidf is a usage error from an engine's check of its config: format
// names fields as {Field}, and is otherwise fmt's.
func Invalidf(format string, a ...any) error { return &Error{&Invalid{format, a}} }

func (e *Invalid) Error() string { return e.render(nil) }

var field = pattern.Lazy(`\{[A-Za-z]+\}`)

// render writes each {Field} as names says, or as the field's name.
func (e *Invalid) render(names map[string]string) string {
	format := field().ReplaceAllStringFunc(e.format, func(m string) string {
		f := m[1 : len(m)-1]
		if n, ok := names[f]; ok {
			return n
		}
		return f
	})
	return fmt.Sprintf(format, e.args...)
}

// Named gives err's message with the fields of the Invalid it holds
// written as names maps them (config field to flag, "BlockSize" to
// "--bs"); what wraps the Invalid is kept. An err without one comes back
// as it is.
func Named(err error, names map[string]string) error {
	var inv *Invalid
	if !errors.As(err, &inv) {
		return err
	}
	return &Error{errors.New(strings.Replace(err.Error(), inv.Error(), inv.render(names), 1))}
}
