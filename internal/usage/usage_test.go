package usage

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestIs(t *testing.T) {
	u := Errorf("--sizes: %w", fs.ErrInvalid)
	if !Is(u) || !Is(fmt.Errorf("wrapped: %w", u)) || !errors.Is(u, fs.ErrInvalid) {
		t.Errorf("usage error not recognised through wrapping: %v", u)
	}
	if Is(errors.New("disk on fire")) || Is(nil) || Wrap(nil) != nil {
		t.Error("plain errors or nil taken for usage errors")
	}
	if u.Error() != "--sizes: invalid argument" {
		t.Errorf("message %q", u.Error())
	}
}
