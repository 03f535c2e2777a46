package disk

import "testing"

func TestCompression(t *testing.T) {
	for opts, want := range map[string]string{
		"rw,relatime,compress=zstd:3,space_cache=v2": "compress=zstd:3",
		"rw,compress-force=lzo":                      "compress-force=lzo",
		"rw,relatime,compress=no":                    "",
		"rw,relatime,discard=async":                  "",
		"":                                           "",
	} {
		if got := compression(opts); got != want {
			t.Errorf("compression(%q) = %q; want %q", opts, got, want)
		}
	}
}

// TestPermutation: every block exactly once per pass, for sizes around
// powers of two.
func TestPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 7, 64, 1000, 4096, 65537} {
		p := newPermutation(n)
		seen := make([]bool, n)
		for range n {
			b := p.next()
			if b < 0 || uint64(b) >= n || seen[b] {
				t.Fatalf("n=%d: block %d out of range or repeated", n, b)
			}
			seen[b] = true
		}
	}
}
