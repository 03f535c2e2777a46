// Package payload makes the data thruput writes and sends: incompressible
// bytes, so that a compressing filesystem, link or proxy cannot make a
// figure look faster than the device or the wire.
package payload

import (
	crand "crypto/rand"
	"math/rand/v2"
)

// Fill writes incompressible bytes into b: ChaCha8 seeded from the OS
// fills megabytes in milliseconds, before any timing starts.
func Fill(b []byte) {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	_, _ = rand.NewChaCha8(seed).Read(b)
}
