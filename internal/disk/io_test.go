package disk

import "testing"

// newIOBuffer rounds buffers of large blocks up to whole huge pages, so the
// kernel can back them with THP, and leaves small-block buffers as asked.
func TestNewIOBufferSize(t *testing.T) {
	for _, c := range []struct{ depth, bs, want int }{
		{32, 4 << 10, 128 << 10}, // small blocks: exact, small pages
		{1, 32 << 10, 32 << 10},
		{1, 64 << 10, 2 << 20}, // large blocks: whole huge pages
		{3, 1 << 20, 4 << 20},
		{8, 1 << 20, 8 << 20},
	} {
		b, err := newIOBuffer(c.depth, c.bs)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != c.want {
			t.Errorf("newIOBuffer(%d, %d): %d bytes, want %d", c.depth, c.bs, len(b), c.want)
		}
		b.fillRandom() // writable end to end
		b.free()
	}
}
