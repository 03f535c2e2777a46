package payload

import (
	"bytes"
	"compress/flate"
	"testing"
)

func TestFillIncompressible(t *testing.T) {
	a, b := make([]byte, 1<<20), make([]byte, 1<<20)
	Fill(a)
	Fill(b)
	if bytes.Equal(a, b) {
		t.Fatal("two fills are equal")
	}
	var out bytes.Buffer
	w, _ := flate.NewWriter(&out, flate.BestCompression)
	_, _ = w.Write(a)
	_ = w.Close()
	if out.Len() < len(a)*99/100 {
		t.Errorf("1 MiB compressed to %d bytes", out.Len())
	}
	if a[len(a)-1] == 0 && a[len(a)-2] == 0 && a[len(a)-3] == 0 {
		t.Error("the tail was left zero")
	}
}
