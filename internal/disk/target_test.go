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

func TestSectorsRead(t *testing.T) {
	for line, want := range map[string]int64{
		"    4093        0   235422     1280    12744    10428   913936    10280        0    14600    11688": 235422 * 512,
		"0 0 0 0 0 0 0 0 0 0 0": 0,
	} {
		if n, ok := sectorsRead(line); !ok || n != want {
			t.Errorf("%q: %d %v, want %d", line, n, ok, want)
		}
	}
	for _, bad := range []string{"", "1 2", "1 2 x", "1 2 -5", "1 2 99999999999999999999"} {
		if n, ok := sectorsRead(bad); ok {
			t.Errorf("%q: %d, want refused", bad, n)
		}
	}
}
