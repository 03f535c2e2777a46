// Package units parses and prints the sizes, rates and lists users type and
// read: "4k", "1GiB", "8-1M", "MiB/s". Every size suffix is binary (k = KiB =
// 1024) as in fio and dd's K, except the SI forms kB, MB, GB, TB (powers of
// 1000), which dd users know.
package units

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// ErrSyntax is wrapped by every parse error, so callers can tell bad input
// from other failures.
var ErrSyntax = errors.New("invalid size")

var multipliers = map[string]int64{
	"": 1, "b": 1, "B": 1,
	"k": 1 << 10, "K": 1 << 10, "KiB": 1 << 10, "kiB": 1 << 10,
	"m": 1 << 20, "M": 1 << 20, "MiB": 1 << 20,
	"g": 1 << 30, "G": 1 << 30, "GiB": 1 << 30,
	"t": 1 << 40, "T": 1 << 40, "TiB": 1 << 40,
	"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
}

// ParseSize reads a positive byte count such as "512", "4k", "1.5MiB" or
// "2GB". Fractions are allowed when they come to a whole number of bytes.
func ParseSize(s string) (int64, error) {
	in := strings.TrimSpace(s)
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num, suffix := in[:i], in[i:]
	if num == "" {
		if strings.HasPrefix(in, "-") {
			return 0, fmt.Errorf("%w %q: sizes must be positive", ErrSyntax, s)
		}
		return 0, fmt.Errorf("%w %q: expected a number such as 4k or 1GiB", ErrSyntax, s)
	}
	mult, ok := multipliers[suffix]
	if !ok {
		return 0, fmt.Errorf("%w %q: unknown unit %q (use k, M, G, T or KiB, MiB, GiB, TiB; kB, MB, GB, TB for powers of 1000)", ErrSyntax, s, suffix)
	}
	var n int64
	if whole, err := strconv.ParseInt(num, 10, 64); err == nil {
		hi, lo := bits.Mul64(uint64(whole), uint64(mult))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("%w %q: too large", ErrSyntax, s)
		}
		n = int64(lo)
	} else {
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("%w %q: %q is not a number", ErrSyntax, s, num)
		}
		v := f * float64(mult)
		if v >= math.MaxInt64 {
			return 0, fmt.Errorf("%w %q: too large", ErrSyntax, s)
		}
		if v != math.Trunc(v) {
			return 0, fmt.Errorf("%w %q: not a whole number of bytes", ErrSyntax, s)
		}
		n = int64(v)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%w %q: sizes must be positive", ErrSyntax, s)
	}
	return n, nil
}

// ParseSizeList reads a comma-separated list of sizes and ranges. A range
// "A-B" expands to A, 2A, 4A ... up to B, which must be reached exactly by
// doubling ("8-1M" is the dd loop's 8, 16 ... 1048576). Duplicates are kept out;
// the order typed is kept.
func ParseSizeList(s string) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	add := func(n int64) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("%w list %q: empty item", ErrSyntax, s)
		}
		lo, hi, isRange := strings.Cut(item, "-")
		if !isRange || lo == "" {
			n, err := ParseSize(item)
			if err != nil {
				return nil, err
			}
			add(n)
			continue
		}
		from, err := ParseSize(lo)
		if err != nil {
			return nil, err
		}
		to, err := ParseSize(hi)
		if err != nil {
			return nil, err
		}
		if to < from {
			return nil, fmt.Errorf("%w range %q: %s is smaller than %s", ErrSyntax, item, hi, lo)
		}
		n := from
		for ; n < to && n <= math.MaxInt64/2; n *= 2 {
			add(n)
		}
		if n != to {
			return nil, fmt.Errorf("%w range %q: doubling %s does not reach %s", ErrSyntax, item, lo, hi)
		}
		add(to)
	}
	return out, nil
}

// BlockLabel prints a block size the way dd loop tables head their rows: bytes below
// 1 KiB, then 1k, 4k, 512k, 1M, 1G; sizes that are no whole multiple of a
// unit stay in bytes.
func BlockLabel(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "G"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// SizeLabel prints a block size for people, as axis labels and summaries
// show it: 8 B, 4 KiB, 1 MiB; a size that is no whole unit in IEC form.
func SizeLabel(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	}
	return IEC(n)
}

// IEC prints a byte count with a binary unit and one decimal: "1.0 GiB".
func IEC(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Size is a flag value for a byte count, read as ParseSize reads it, so a
// bad size is refused while the flags are parsed, naming its flag.
type Size struct{ p *int64 }

// NewSize sets *p to def and returns the flag value that sets it.
func NewSize(p *int64, def int64) Size {
	*p = def
	return Size{p}
}

func (s Size) Set(v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return err
	}
	*s.p = n
	return nil
}

func (s Size) String() string {
	if s.p == nil {
		return ""
	}
	return BlockLabel(*s.p)
}

func (Size) Type() string { return "size" }
