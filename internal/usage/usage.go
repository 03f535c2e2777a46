// Package usage marks errors that are the user's to fix (a bad flag, a target
// that cannot be used) so that main can exit with status 2 for them and 1 for
// a measurement that failed.
package usage

import (
	"errors"
	"fmt"
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
