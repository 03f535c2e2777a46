package units

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"8": 8, "512B": 512, "4k": 4096, "4K": 4096, "4KiB": 4096, "1M": 1 << 20, "1MiB": 1 << 20,
		"1G": 1 << 30, "2GiB": 2 << 30, "1T": 1 << 40, "1.5k": 1536, "0.5M": 512 << 10,
		"1kB": 1000, "1MB": 1000000, "5GB": 5e9, " 16k ": 16384, "8191": 8191,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                     "expected a number",
		"k":                    "expected a number",
		"-4k":                  "must be positive",
		"0":                    "must be positive",
		"0k":                   "must be positive",
		"4x":                   `unknown unit "x"`,
		"4 kb":                 `unknown unit " kb"`,
		"4kb":                  `unknown unit "kb"`,
		"1.1":                  "whole number of bytes",
		"1..2k":                "is not a number",
		"9999999T":             "too large",
		"99999999999999999999": "too large",
	}
	for in, msg := range bad {
		_, err := ParseSize(in)
		if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSize(%q) error = %v; want one containing %q", in, err, msg)
		}
	}
}

func TestParseSizeList(t *testing.T) {
	seed := []int64{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576}
	cases := map[string][]int64{
		"8-1M":          seed,
		"4k":            {4096},
		"512,4k-16k,1M": {512, 4096, 8192, 16384, 1 << 20},
		"4k,4k,8k-8k":   {4096, 8192},
		"1M,4k":         {1 << 20, 4096},
	}
	for in, want := range cases {
		got, err := ParseSizeList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseSizeList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "4k,", "1M-4k", "3-1M", "4k-x", "a-4k", ",4k"} {
		if _, err := ParseSizeList(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseSizeList(%q) error = %v; want a syntax error", in, err)
		}
	}
}

func TestLabels(t *testing.T) {
	for n, want := range map[int64]string{8: "8", 1000: "1000", 1024: "1k", 1536: "1536", 524288: "512k", 1 << 20: "1M", 3 << 30: "3G"} {
		if got := BlockLabel(n); got != want {
			t.Errorf("BlockLabel(%d) = %q; want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1 << 30: "1.0 GiB", 1536 << 20: "1.5 GiB"} {
		if got := IEC(n); got != want {
			t.Errorf("IEC(%d) = %q; want %q", n, got, want)
		}
	}
}

// FuzzParseSizeList checks that any input gives sizes that are positive and
// print back to themselves, or a syntax error, and never a panic.
func FuzzParseSizeList(f *testing.F) {
	for _, s := range []string{"8-1M", "4k", "1.5GiB", "-1", "1e9", "8-9223372036854775807", "0.000001k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sizes, err := ParseSizeList(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		for _, n := range sizes {
			if n <= 0 {
				t.Fatalf("%q gave size %d", s, n)
			}
			if back, err := ParseSize(BlockLabel(n)); err != nil || back != n {
				t.Fatalf("BlockLabel(%d) = %q parses to %d, %v", n, BlockLabel(n), back, err)
			}
		}
	})
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[int64]string{8: "8 B", 512: "512 B", 4096: "4 KiB", 1 << 20: "1 MiB", 2 << 30: "2 GiB", 1536: "1.5 KiB"} {
		if got := SizeLabel(n); got != want {
			t.Errorf("SizeLabel(%d) = %q, want %q", n, got, want)
		}
	}
}
