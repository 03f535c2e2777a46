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
