package iperf3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// authKey is the parameter a thruput client adds when the server wants a
// shared secret. iperf3 servers ignore unknown keys, so a thruput client
// with a secret still runs against them.
const authKey = "thruput_auth"

// authWindow bounds the clock difference between the two ends and how
// long a used token is remembered.
const authWindow = 5 * time.Minute

// authToken proves knowledge of secret for this test: an HMAC over the
// test's cookie and the time, "unix-seconds:hex".
func authToken(secret, cookie []byte, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + ":" + hex.EncodeToString(authMAC(secret, cookie, ts))
}

func authMAC(secret, cookie []byte, ts string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(cookie)
	m.Write([]byte{0})
	m.Write([]byte(ts))
	return m.Sum(nil)
}

var errAuth = errors.New("authentication failed")

// authChecker verifies tokens and refuses a token seen before, so a
// captured control connection cannot be replayed.
type authChecker struct {
	secret []byte
	mu     sync.Mutex
	seen   map[string]time.Time
}

func (a *authChecker) check(cookie []byte, token string, now time.Time) error {
	ts, mac, ok := strings.Cut(token, ":")
	if !ok {
		return errAuth
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errAuth
	}
	if d := now.Sub(time.Unix(sec, 0)); d > authWindow || d < -authWindow {
		return errors.New("authentication failed: the clocks of client and server differ by more than 5 minutes")
	}
	got, err := hex.DecodeString(mac)
	if err != nil || !hmac.Equal(got, authMAC(a.secret, cookie, ts)) {
		return errAuth
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, t := range a.seen {
		if now.Sub(t) > 2*authWindow {
			delete(a.seen, k)
		}
	}
	if _, dup := a.seen[token]; dup {
		return errors.New("authentication failed: token replayed")
	}
	if a.seen == nil {
		a.seen = map[string]time.Time{}
	}
	a.seen[token] = now
	return nil
}
