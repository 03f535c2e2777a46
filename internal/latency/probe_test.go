package latency

import (
	"bytes"
	"testing"
)

func TestProbeRoundTrip(t *testing.T) {
	p := packet{echo: true, token: [TokenSize]byte{1, 2, 3, 4, 5, 6, 7, 8}, seq: 42, sent: 1e9, srvRecv: -5, srvSent: 7, srvCount: 3}
	var buf [probeSize]byte
	got, err := decode(p.encode(buf[:]))
	if err != nil || got != p {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", p, got, err)
	}
}

func TestProbeRefused(t *testing.T) {
	var buf [probeSize]byte
	good := (&packet{seq: 1}).encode(buf[:])
	for _, c := range []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"short", good[:probeSize-1]},
		{"long", append(bytes.Clone(good), 0)},
		{"magic", append([]byte("TPL2"), good[4:]...)},
		{"flags", append(append(bytes.Clone(good[:4]), 2), good[5:]...)},
		{"reserved", append(append(bytes.Clone(good[:5]), 1), good[6:]...)},
		{"iperf3 hello", []byte("9876")},
		{"tail", append(bytes.Clone(good[:probeSize-1]), 1)},
	} {
		if _, err := decode(c.b); err != errNotProbe {
			t.Errorf("%s: decode = %v, want errNotProbe", c.name, err)
		}
	}
}

// FuzzDecode: the echo port reads whatever arrives; decode never panics,
// and what it accepts encodes back to the same bytes.
func FuzzDecode(f *testing.F) {
	var buf [probeSize]byte
	f.Add((&packet{seq: 9, sent: 123}).encode(buf[:]))
	f.Add([]byte("9876"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decode(b)
		if err != nil {
			return
		}
		var out [probeSize]byte
		if enc := p.encode(out[:]); !bytes.Equal(enc, b) {
			t.Fatalf("decode then encode changed %x to %x", b, enc)
		}
	})
}
