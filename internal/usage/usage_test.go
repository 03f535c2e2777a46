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

func TestInvalidNamed(t *testing.T) {
	inv := Invalidf("{BlockSize} %s is larger than {FileSize} %q", "4 KiB", "{FileSize}")
	if !Is(inv) {
		t.Fatal("an engine's refusal is not a usage error")
	}
	if got, want := inv.Error(), `BlockSize 4 KiB is larger than FileSize "{FileSize}"`; got != want {
		t.Errorf("unnamed: %q, want %q", got, want)
	}
	names := map[string]string{"BlockSize": "--bs", "FileSize": "--file-size"}
	wrapped := fmt.Errorf("target /mnt: %w", inv)
	got := Named(wrapped, names)
	if want := `target /mnt: --bs 4 KiB is larger than --file-size "{FileSize}"`; got.Error() != want {
		t.Errorf("named: %q, want %q", got.Error(), want)
	}
	if !Is(got) {
		t.Error("a named refusal is no longer a usage error")
	}
	plain := errors.New("disk on fire")
	if Named(plain, names) != plain || Named(nil, names) != nil {
		t.Error("Named changed an error that holds no Invalid")
	}
}
