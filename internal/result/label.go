package result

import (
	"fmt"
	"strings"
)

// ParseLabel splits a --label argument "key=value". Keys are short names of
// letters, digits, '_', '-' and '.', so that they read the same in a shell,
// a URL and a CSV header; values are any text without control characters.
func ParseLabel(s string) (key, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("label %q: want key=value, e.g. device=sandisk-extreme", s)
	}
	if key == "" || len(key) > 64 {
		return "", "", fmt.Errorf("label %q: the key must be 1 to 64 characters", s)
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return "", "", fmt.Errorf("label %q: the key may hold only letters, digits, '_', '-' and '.'", s)
		}
	}
	if len(value) > 256 {
		return "", "", fmt.Errorf("label %q: the value is longer than 256 bytes", s)
	}
	for _, r := range value {
		if r < 0x20 || r == 0x7f {
			return "", "", fmt.Errorf("label %q: the value holds a control character", s)
		}
	}
	return key, value, nil
}

// ParseLabels turns repeated --label arguments into a map; a key given
// twice is an error rather than a silent overwrite.
func ParseLabels(args []string) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(args))
	for _, a := range args {
		k, v, err := ParseLabel(a)
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("label %q given twice", k)
		}
		m[k] = v
	}
	return m, nil
}
